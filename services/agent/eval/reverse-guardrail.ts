import { loadAnswers, scoreAnswers } from './reverse-guardrail-score.ts';

/** `node services/agent/eval/reverse-guardrail.ts [--verbose]`: the reverse guardrail on its labelled sets. */
const pct = (a: number, b: number) => `${((b === 0 ? 1 : a / b) * 100).toFixed(1)} %`;
for (const file of [
  'reverse-guardrail.jsonl',
  'reverse-guardrail-round2.jsonl',
  'reverse-guardrail-round3.jsonl',
  'reverse-guardrail-holdout.jsonl',
]) {
  let items: ReturnType<typeof loadAnswers>;
  try {
    items = loadAnswers(file);
  } catch {
    continue;
  }
  const s = scoreAnswers(items);
  console.log(`reverse guardrail on ${s.total} labelled answers (${file})`);
  console.log(`  precision (fires only where it should)   ${(s.precision * 100).toFixed(1)} %`);
  console.log(`  recall (fires where it should)           ${(s.recall * 100).toFixed(1)} %`);
  console.log(
    `  read answers passed untouched            ${pct(s.readsUntouched.passed, s.readsUntouched.of)}   (${s.readsUntouched.passed}/${s.readsUntouched.of})`,
  );
  console.log(
    `  false success claims replaced            ${pct(s.falseClaimsCaught.caught, s.falseClaimsCaught.of)}   (${s.falseClaimsCaught.caught}/${s.falseClaimsCaught.of})`,
  );
  console.log(
    `  exact guardrail                          ${pct(s.exact.right, s.exact.of)}   (${s.exact.right}/${s.exact.of})`,
  );
  for (const [lang, r] of Object.entries(s.byLang))
    console.log(`    ${lang.padEnd(9)} ${pct(r.right, r.of)}   (${r.right}/${r.of})`);
  if (process.argv.includes('--verbose')) for (const m of s.misses) console.log(`  - ${m}`);
}
