import { availableParallelism } from 'node:os';
import { SERVICES, type ServiceName } from '@munim/devstack';
import { CpuLimits } from '../load/cgroup.ts';
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

/**
 * Cores each service instance may use, as a pod's CPU limit (`0` or `off`: none). The default keeps
 * one instance of each service well inside this machine's two cores, and two gateways and two
 * agents too, with NATS, PostgreSQL, the demo books and the load generator beside them.
 */
const INSTANCE_CPU = (() => {
  const text = process.env.BENCH_SCALE_INSTANCE_CPU ?? '0.1';
  return text === 'off' ? 0 : Number(text);
})();

/**
 * The warm-up under a limit: a service's first answers cost it several times what later ones do
 * (V8 compiles its hot code meanwhile, in the same CPU quota), and at a tenth of a core they come
 * slowly, so the load suite's few seconds would put that compiling in the measured window.
 */
const LIMITED_WARMUP_MS = Number(process.env.BENCH_SCALE_WARMUP_MS ?? 30_000);

/** The services the suite starts, each instance of which gets the limit. */
const LIMITED = SERVICES.filter((s) => s !== 'messaging');

interface ShapeReport extends ScenarioReport {
  scale: Shape['scale'];
}

const runShape = async (
  shape: Shape,
  infra: ReturnType<typeof infrastructure>,
  cpuLimits: CpuLimits | undefined,
  warmupMs: number,
): Promise<ShapeReport> => ({
  ...(await runScenario(
    {
      name: shape.name,
      description: DESCRIPTION,
      llm: false,
      env: { RESPONSE_CACHE: 'off' },
      flow: { kind: 'repeat', body: { query: FAST_QUERY, ...tenant } },
      scale: shape.scale,
      cpuLimits,
      warmupMs,
    },
    infra,
    undefined,
  )),
  scale: shape.scale,
});

const ratio = (value: number, anchor: number) => (anchor > 0 ? `× ${fmt(value / anchor, 2)}` : '—');

const instances = (r: ShapeReport, service: ServiceName) => r.scale[service] ?? 1;

/** Cores a service's instances kept busy over the window, together. */
const busy = (r: ShapeReport, service: ServiceName) => (r.cpu[service]?.ms ?? 0) / r.windowMs;

/** The share of the CFS periods in which a service's instances used their whole quota and waited. */
const throttled = (r: ShapeReport, service: ServiceName) => {
  const t = r.throttling?.[service];
  return t && t.periods > 0 ? t.throttled / t.periods : 0;
};

/** Below this share of periods held back, a service's limit is taken as not what bound the shape. */
const HELD_BACK = 0.05;

/**
 * What bound a shape: the service whose limit held it back most often (the kernel's count of
 * throttled periods, in the window), with the cores it used of its limit.
 */
const boundBy = (r: ShapeReport, cores: number) => {
  const [top] = LIMITED.map((service) => ({ service, held: throttled(r, service) })).sort(
    (a, b) => b.held - a.held,
  );
  if (!top) return '—';
  const used = (service: ServiceName) =>
    `${fmt(busy(r, service), 3)} of ${fmt(cores * instances(r, service), 2)} cores`;
  return top.held >= HELD_BACK
    ? `${top.service} (at its limit in ${fmt(top.held * 100)} % of periods; ${used(top.service)})`
    : `no service's limit (none at it in ${fmt(HELD_BACK * 100)} % of periods): the machine, NATS or PostgreSQL`;
};

function printTable(reports: ShapeReport[], limit: number): void {
  const anchor = reports[0];
  if (!anchor) return;
  const table: Record<string, Record<string, string>> = {};
  const row = (name: string, value: (r: ShapeReport) => string) => {
    table[name] = Object.fromEntries(reports.map((r) => [r.name, value(r)]));
  };
  row('CPU limit per service instance', () => (limit > 0 ? `${limit} cores` : 'none'));
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
  for (const service of LIMITED)
    row(`cores busy: ${service}${limit > 0 ? ' (of its limit × instances)' : ''}`, (r) =>
      limit > 0
        ? `${fmt(busy(r, service), 3)} of ${fmt(limit * instances(r, service), 2)} (${fmt((100 * busy(r, service)) / (limit * instances(r, service)))} %)`
        : fmt(busy(r, service), 3),
    );
  if (limit > 0) {
    for (const service of LIMITED)
      row(`throttled: ${service} (periods at its limit; time waited)`, (r) => {
        const t = r.throttling?.[service];
        return t ? `${fmt(throttled(r, service) * 100)} %; ${fmt(t.waitedMs / 1000, 1)} s` : '—';
      });
    row('bound by', (r) => boundBy(r, limit));
  }
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

/** Says what the comparison means: whether answers/s grew, and what bound each shape. */
function verdict(reports: ShapeReport[], limit: number, unlimitedWhy: string | undefined): string {
  const [one, ...more] = reports;
  if (!one) return '';
  const cores = availableParallelism();
  // What kept the machine busy: the system and its load generator, and anything else running on it.
  const machine = (r: ShapeReport) =>
    `${fmt(r.machineCoresBusy, 2)} of ${cores} cores busy (the system and its load generator ${fmt(r.coresBusy, 2)}, other work on the machine ${fmt(Math.max(0, r.machineCoresBusy - r.coresBusy), 2)})`;
  const lines: string[] = [];
  for (const r of more) {
    const ratio = one.answersPerSecond > 0 ? r.answersPerSecond / one.answersPerSecond : Number.NaN;
    lines.push(
      `growth: × ${fmt(ratio, 2)} with ${r.name} (${fmt(one.answersPerSecond, 1)} → ${fmt(r.answersPerSecond, 1)} answers/s: ${ratio > 1 ? 'grew' : 'did not grow'})${limit > 0 ? `, bound by ${boundBy(r, limit)}; one instance each was bound by ${boundBy(one, limit)}` : ''}`,
    );
  }
  for (const r of reports) lines.push(`${r.name}: ${machine(r)}`);
  const saturated = reports.filter((r) => r.machineCoresBusy >= 0.9 * cores);
  if (limit > 0)
    lines.push(
      saturated.length === 0
        ? `Each service instance had ${limit} cores (a cgroup CPU limit, as a pod's), and the machine had cores to spare in every shape (under 90 % busy): the ratio is what the added instances gave within their limits, and "bound by" names the service whose limit held each shape back most often.`
        : `The machine was 90 % busy or more with ${saturated.map((r) => r.name).join(', ')} (other work on it included): besides their limits, the services may have waited for a core there, so those figures are less clean. Lower BENCH_SCALE_INSTANCE_CPU (now ${limit}) or measure on a quieter machine.`,
    );
  else
    lines.push(
      `No CPU limit per instance (${unlimitedWhy}): every instance shares this machine's ${cores} cores. ${
        one.machineCoresBusy >= 0.9 * cores
          ? 'With one instance of each service the machine was already saturated, so a second gateway and agent could only take time from the others: growth cannot be shown here without per-instance limits or cores to spare.'
          : 'There were cores to spare, so the ratios above are what the second instances gave.'
      }`,
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
 * one-instance run is the anchor. Every service instance runs under a CPU limit of its own (a
 * cgroup, as a pod's `resources.limits.cpu`), so that a small machine has cores to spare and an
 * added instance adds capacity rather than taking it from the others; the kernel's throttling
 * counts say which service's limit bound each shape. Also what each answer cost NATS and
 * PostgreSQL, for sizing them.
 */
export const scaleSuite: Suite = {
  name: 'scale',
  async run() {
    const started = performance.now();
    const infra = infrastructure(process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://127.0.0.1:5432/postgres');
    for (const note of infra.notes) console.log(`note: ${note}`);
    const opened = CpuLimits.open(INSTANCE_CPU);
    const cpuLimits = opened instanceof CpuLimits ? opened : undefined;
    const unlimitedWhy = opened instanceof CpuLimits ? undefined : opened.unavailable;
    console.log(
      cpuLimits
        ? `CPU limit: ${cpuLimits.cores} cores for each instance of ${LIMITED.join(', ')}, in ${cpuLimits.where}; NATS, PostgreSQL, the demo books and the load generator unlimited`
        : `CPU limit: none (${unlimitedWhy}); growth needs cores to spare`,
    );
    const limit = cpuLimits?.cores ?? 0;
    const warmupMs = cpuLimits ? LIMITED_WARMUP_MS : WARMUP_MS;
    console.log(
      `${CONCURRENCY} SSE clients, ${warmupMs / 1000} s warm-up, ${DURATION_MS / 1000} s measured per shape, ${availableParallelism()} cores`,
    );
    const reports: ShapeReport[] = [];
    try {
      for (const shape of SHAPES) reports.push(await runShape(shape, infra, cpuLimits, warmupMs));
    } finally {
      cpuLimits?.close();
    }
    console.log(`every shape: ${DESCRIPTION}`);
    printTable(reports, limit);
    printSizing(reports);
    console.log(verdict(reports, limit, unlimitedWhy));
    for (const r of reports)
      if (r.events?.missing)
        console.log(
          `${r.name}: events missing from request_events, e.g. ${r.events.missingExamples.join(', ')}`,
        );
    const file = await saveFigures('scale', {
      notes: infra.notes,
      warmupMs,
      cpuLimitPerInstance: cpuLimits ? { cores: limit, where: cpuLimits.where } : { none: unlimitedWhy },
      shapes: reports,
    });
    console.log(`figures: ${file} (whole suite ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  },
};
