import { evaluate } from './evaluate.ts';

const s = evaluate();
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
console.log(`router evaluation on ${s.total} labelled queries`);
console.log(`  category accuracy     ${pct(s.categoryAccuracy)}   (goal ≥ 98 %)`);
console.log(
  `  fast-path precision   ${pct(s.fastPrecision)}   (${s.fastCorrect}/${s.fastSent}, goal ≥ 99 %)`,
);
console.log(
  `  fast-path recall      ${pct(s.fastRecall)}   (of ${s.intentQueries} intent queries, goal ≥ 85 %)`,
);
console.log('token budget (tool definitions, ~4 chars/token, unified queries)');
console.log(`  every tool, every query   ${s.tokens.all}`);
console.log(
  `  router selection          ${s.tokens.selected}   (${pct(s.tokens.saving)} fewer, goal ≥ 70 %)`,
);
console.log(
  `  coverage (group offered)  ${pct(s.tokens.coverage)}   (${s.tokens.covered}/${s.tokens.needed})`,
);
if (process.argv.includes('--verbose')) for (const m of s.misses) console.log(`  - ${m}`);
