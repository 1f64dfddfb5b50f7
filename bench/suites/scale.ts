import { availableParallelism } from 'node:os';
import type { ServiceName } from '@munim/devstack';
import type { CountsPerAnswer } from '../load/counts.ts';
import { FAST_QUERY } from '../load/llm.ts';
import type { Suite } from '../run.ts';
import {
  CONCURRENCY,
  DURATION_MS,
  eventsStored,
  fmt,
  infrastructure,
  OUTSIDE,
  PROCESS_ORDER,
  processLabels,
  runScenario,
  type ScenarioReport,
  saveFigures,
  tenant,
  WARMUP_MS,
} from './load.ts';

interface Shape {
  name: string;
  /** Instances per service; one of each other service. */
  scale: Partial<Record<ServiceName, number>>;
}

/** The one-instance run first: it is the anchor the others are compared with. */
const SHAPES: Shape[] = [
  { name: '1 gateway, 1 agent', scale: {} },
  { name: '2 gateways, 2 agents', scale: { gateway: 2, agent: 2 } },
];

const DESCRIPTION = `"${FAST_QUERY}", RESPONSE_CACHE=off, no model; the clients spread round-robin over the gateways`;

interface ShapeReport extends ScenarioReport {
  scale: Shape['scale'];
}

const runShape = async (shape: Shape, infra: ReturnType<typeof infrastructure>): Promise<ShapeReport> => ({
  ...(await runScenario(
    {
      name: shape.name,
      description: DESCRIPTION,
      llm: false,
      env: { RESPONSE_CACHE: 'off' },
      flow: { kind: 'repeat', body: { query: FAST_QUERY, ...tenant } },
      scale: shape.scale,
    },
    infra,
    undefined,
  )),
  scale: shape.scale,
});

const ratio = (value: number, anchor: number) => (anchor > 0 ? `× ${fmt(value / anchor, 2)}` : '—');

function printTable(reports: ShapeReport[]): void {
  const anchor = reports[0];
  if (!anchor) return;
  const table: Record<string, Record<string, string>> = {};
  const row = (name: string, value: (r: ShapeReport) => string) => {
    table[name] = Object.fromEntries(reports.map((r) => [r.name, value(r)]));
  };
  row('answers/s', (r) => fmt(r.answersPerSecond, 1));
  row('answers/s ÷ one instance', (r) =>
    r === anchor ? 'anchor' : ratio(r.answersPerSecond, anchor.answersPerSecond),
  );
  // Other work on a shared machine takes cores from a run: per core it had, the runs compare anyway.
  row('answers/s per core the system had (÷ cores busy: all measured)', (r) =>
    fmt(r.answersPerSecond / r.coresBusy, 1),
  );
  row('answers (errors, failures)', (r) => `${r.answers} (${r.errors}, ${r.failures})`);
  row('p50 ms to complete', (r) => fmt(r.latencyMs.p50, 1));
  row('p99 ms to complete', (r) => fmt(r.latencyMs.p99, 1));
  row('p99 ÷ one instance', (r) => (r === anchor ? 'anchor' : ratio(r.latencyMs.p99, anchor.latencyMs.p99)));
  row('events stored/sent', eventsStored);
  const labels = processLabels(reports).filter(
    (label) => reports.some((r) => r.cpu[label]) && !OUTSIDE.includes(label),
  );
  for (const label of labels)
    row(`CPU ms/answer: ${label}`, (r) => {
      const cpu = r.cpu[label];
      if (!cpu) return '—';
      return cpu.processes > 1 && !label.startsWith('postgres')
        ? `${fmt(cpu.msPerAnswer, 3)} (${cpu.processes} processes)`
        : fmt(cpu.msPerAnswer, 3);
    });
  row('CPU ms/answer: system total', (r) => fmt(r.cpuMsPerAnswer, 3));
  row('CPU ms/answer ÷ one instance', (r) =>
    r === anchor ? 'anchor' : ratio(r.cpuMsPerAnswer, anchor.cpuMsPerAnswer),
  );
  for (const label of OUTSIDE)
    if (reports.some((r) => r.cpu[label]))
      row(`CPU ms/answer: ${label} (not the system)`, (r) => fmt(r.cpu[label]?.msPerAnswer, 3));
  row('cores busy: all measured', (r) => fmt(r.coresBusy, 2));
  row(`cores busy: machine (of ${availableParallelism()})`, (r) => fmt(r.machineCoresBusy, 2));
  console.table(table);
}

/**
 * What an answer asks of NATS and PostgreSQL, for sizing them: the window's statements and messages
 * (counted in each service), and the whole run's stream bytes, rows, WAL and storage writes.
 */
function printSizing(reports: ShapeReport[]): void {
  const table: Record<string, Record<string, string>> = {};
  const row = (name: string, value: (r: ShapeReport) => string | null | undefined) => {
    table[name] = Object.fromEntries(reports.map((r) => [r.name, value(r) ?? '—']));
  };
  const keysOf = (of: (c: CountsPerAnswer) => Record<string, number>) => {
    const keys = new Set(reports.flatMap((r) => (r.counts ? Object.keys(of(r.counts)) : [])));
    return [...PROCESS_ORDER, 'total', ...keys].filter((k, i, all) => keys.has(k) && all.indexOf(k) === i);
  };
  const perService = [
    ['SQL statements/answer', (c: CountsPerAnswer) => c.sql],
    ['NATS msgs sent/answer', (c: CountsPerAnswer) => c.natsOut],
    ['JetStream msgs stored/answer', (c: CountsPerAnswer) => c.streams],
  ] as const;
  for (const [title, of] of perService)
    for (const key of keysOf(of)) row(`${title}: ${key}`, (r) => r.counts && fmt(of(r.counts)[key], 2));
  row('NATS msgs received/answer: total', (r) => r.counts && fmt(r.counts.natsIn.total, 2));
  const per = (r: ShapeReport, n: number) => fmt(r.footprint ? n / r.footprint.answers : Number.NaN, 2);
  row('run: answers (warm-up and drain too)', (r) => fmt(r.footprint?.answers));
  row('run: EVENTS bytes stored/answer', (r) => r.footprint && per(r, r.footprint.events.bytes));
  row(
    'run: NATS server write calls/answer',
    (r) => r.footprint?.io.nats && per(r, r.footprint.io.nats.writeCalls),
  );
  row(
    'run: NATS server bytes to storage/answer',
    (r) => r.footprint?.io.nats && per(r, r.footprint.io.nats.writeBytes),
  );
  row('run: PostgreSQL commits/answer', (r) => r.footprint && per(r, r.footprint.database.commits));
  row('run: rows inserted/answer', (r) => r.footprint && per(r, r.footprint.database.inserted));
  row('run: rows updated/answer', (r) => r.footprint && per(r, r.footprint.database.updated));
  row('run: rows deleted/answer', (r) => r.footprint && per(r, r.footprint.database.deleted));
  for (const table of ['request_events', 'query_routing_logs'] as const) {
    row(`run: ${table} rows/answer`, (r) => r.footprint && per(r, r.footprint.tables[table].rows));
    row(
      `run: ${table} bytes/answer (indexes, TOAST)`,
      (r) => r.footprint && per(r, r.footprint.tables[table].bytes),
    );
  }
  row('run: WAL bytes/answer (whole server)', (r) => r.footprint && per(r, r.footprint.wal.bytes));
  row('most connections to the database at once', (r) =>
    Object.entries(r.footprint?.connections ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([login, n]) => `${login} ${n}`)
      .join(', '),
  );
  console.table(table);
}

/** Says what the comparison means on this machine: whether its cores had room for more instances. */
function verdict(reports: ShapeReport[]): string {
  const [one, ...more] = reports;
  if (!one) return '';
  const cores = availableParallelism();
  // What kept the machine busy: the system and its load generator, and anything else running on it.
  const busy = (r: ShapeReport) =>
    `${fmt(r.machineCoresBusy, 2)} of ${cores} cores busy (the system and its load generator ${fmt(r.coresBusy, 2)}, other work on the machine ${fmt(Math.max(0, r.machineCoresBusy - r.coresBusy), 2)})`;
  const lines = more.map(
    (r) =>
      `${r.name}: answers/s ${ratio(r.answersPerSecond, one.answersPerSecond)} the one-instance run's, CPU per answer ${ratio(r.cpuMsPerAnswer, one.cpuMsPerAnswer)}; ${busy(r)}`,
  );
  lines.push(
    one.machineCoresBusy >= 0.9 * cores
      ? `With one instance of each service the machine was already saturated: ${busy(one)}. The second gateway and agent had no idle core to run on; what they add here is what they take from the others (and from whatever else ran meanwhile), and growth needs cores to spare (a bigger machine, or another one).`
      : `With one instance of each service: ${busy(one)}. There were cores to spare, so the ratios above are what the second instances gave.`,
  );
  const top = Object.entries(one.cpu)
    .filter(([label]) => !OUTSIDE.includes(label))
    .sort(([, a], [, b]) => b.msPerAnswer - a.msPerAnswer)
    .slice(0, 4)
    .map(([label, c]) => `${label} ${fmt(c.msPerAnswer, 1)} ms`);
  lines.push(`Most CPU per answer (one instance): ${top.join(', ')}.`);
  return lines.join('\n');
}

/**
 * Whether the system answers more with more instances: the fast path under the load suite's
 * clients, with one instance of each service, then with two gateways and two agents (the clients
 * spread round-robin over both gateways), each on a fresh system in the same run. The
 * one-instance run is the anchor. Also what each answer cost NATS and PostgreSQL, for sizing them.
 */
export const scaleSuite: Suite = {
  name: 'scale',
  async run() {
    const started = performance.now();
    console.log(
      `${CONCURRENCY} SSE clients, ${WARMUP_MS / 1000} s warm-up, ${DURATION_MS / 1000} s measured per shape, ${availableParallelism()} cores`,
    );
    const infra = infrastructure(process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://127.0.0.1:5432/postgres');
    for (const note of infra.notes) console.log(`note: ${note}`);
    const reports: ShapeReport[] = [];
    for (const shape of SHAPES) reports.push(await runShape(shape, infra));
    console.log(`every shape: ${DESCRIPTION}`);
    printTable(reports);
    printSizing(reports);
    console.log(verdict(reports));
    for (const r of reports)
      if (r.events?.missing)
        console.log(
          `${r.name}: events missing from request_events, e.g. ${r.events.missingExamples.join(', ')}`,
        );
    const file = await saveFigures('scale', { notes: infra.notes, shapes: reports });
    console.log(`figures: ${file} (whole suite ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  },
};
