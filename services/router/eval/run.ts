import { DEFAULT_RULES } from '../src/learning.ts';
import { evaluate, loadQueries } from './evaluate.ts';

const queries = loadQueries();
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const count = (kind: string) => queries.filter((q) => q.kind === kind).length;
const s = evaluate(queries);
console.log(`router evaluation on ${s.total} labelled queries`);
console.log(`  category accuracy     ${pct(s.categoryAccuracy)}   (goal ≥ 98 %)`);
console.log(
  `  fast-path precision   ${pct(s.fastPrecision)}   (${s.fastCorrect}/${s.fastSent}, goal ≥ 99 %)`,
);
console.log(
  `  fast-path recall      ${pct(s.fastRecall)}   (of ${s.intentQueries} intent queries, goal ≥ 85 %)`,
);
// An intent with a good record gets a lower threshold (0.80), never below the minimum.
for (const threshold of [s.threshold - DEFAULT_RULES.step, DEFAULT_RULES.min]) {
  const a = evaluate(queries, undefined, undefined, threshold);
  console.log(
    `  at threshold ${threshold.toFixed(2)}: precision ${pct(a.fastPrecision)} (${a.fastCorrect}/${a.fastSent}), recall ${pct(a.fastRecall)}, ` +
      `orders on a read fast path ${a.ordersFast}/${count('order')}, filters dropped ${a.filtersDropped}/${count('filter')}`,
  );
}
console.log(
  `  orders on a read fast path ${s.ordersFast}/${count('order')}, filtered questions answered without their filter ${s.filtersDropped}/${count('filter')}`,
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
