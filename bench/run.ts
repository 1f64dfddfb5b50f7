/**
 * `npm run bench`: every benchmark suite, each reporting against an anchor measured in the same run.
 * `npm run bench -- <name>` runs the suites whose name contains <name>.
 */
import { e2eLatency } from './suites/e2e-latency.ts';
import { executorSuite } from './suites/executor.ts';
import { loggerSuite } from './suites/logger.ts';
import { routerSuite } from './suites/router.ts';
import { tracingOverhead } from './suites/tracing.ts';
import { validatorSuite } from './suites/validator.ts';

export interface Suite {
  name: string;
  run(): Promise<void>;
}

const suites: Suite[] = [
  e2eLatency,
  validatorSuite,
  routerSuite,
  executorSuite,
  loggerSuite,
  tracingOverhead,
];
const filter = process.argv[2];
const selected = suites.filter((s) => !filter || s.name.includes(filter));
if (selected.length === 0) {
  console.error(`no suite matches "${filter}"; suites: ${suites.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
for (const suite of selected) {
  console.log(`\n## ${suite.name}`);
  await suite.run();
}
process.exit(0);
