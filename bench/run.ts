/**
 * `npm run bench`: every benchmark suite, each reporting against an anchor measured in the same run.
 * `npm run bench -- <name>` runs the suites whose name contains <name>; only those are loaded.
 */
export interface Suite {
  name: string;
  run(): Promise<void>;
}

const suites: { name: string; load: () => Promise<Suite> }[] = [
  { name: 'e2e-latency', load: async () => (await import('./suites/e2e-latency.ts')).e2eLatency },
  { name: 'validator', load: async () => (await import('./suites/validator.ts')).validatorSuite },
  { name: 'router', load: async () => (await import('./suites/router.ts')).routerSuite },
  { name: 'executor', load: async () => (await import('./suites/executor.ts')).executorSuite },
  { name: 'logger-ingest', load: async () => (await import('./suites/logger.ts')).loggerSuite },
  { name: 'tracing', load: async () => (await import('./suites/tracing.ts')).tracingOverhead },
  { name: 'load', load: async () => (await import('./suites/load.ts')).loadSuite },
  { name: 'scale', load: async () => (await import('./suites/scale.ts')).scaleSuite },
  { name: 'streaming', load: async () => (await import('./suites/streaming.ts')).streamingSuite },
];
const filter = process.argv[2];
const selected = suites.filter((s) => !filter || s.name.includes(filter));
if (selected.length === 0) {
  console.error(`no suite matches "${filter}"; suites: ${suites.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
for (const entry of selected) {
  const suite = await entry.load();
  console.log(`\n## ${suite.name}`);
  await suite.run();
}
process.exit(0);
