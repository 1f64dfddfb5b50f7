import { loadWrites, scoreWrites } from './requested-score.ts';

/** `node services/agent/eval/requested.ts [--verbose]`: the unrequested-write flag on its labelled sets. */
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
for (const file of [
  'requested-writes.jsonl',
  'requested-writes-holdout.jsonl',
  'requested-writes-holdout2.jsonl',
]) {
  const s = scoreWrites(loadWrites(file));
  console.log(`unrequested_write on ${s.total} labelled (message, write) pairs (${file})`);
  console.log(`  precision (flags only writes not asked for)   ${pct(s.precision)}`);
  console.log(`  recall (flags every write not asked for)      ${pct(s.recall)}`);
  for (const [lang, r] of Object.entries(s.byLang))
    console.log(`    ${lang.padEnd(9)} ${pct(r.right / r.of)}   (${r.right}/${r.of})`);
  if (process.argv.includes('--verbose')) for (const m of s.misses) console.log(`  - ${m}`);
}
