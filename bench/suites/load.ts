import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ServiceName } from '@munim/devstack';
import pg from 'pg';
import { forkAnchor } from '../load/anchor.ts';
import { type BaseCheckout, checkoutBase } from '../load/base.ts';
import { type CpuLimits, type Throttling, throttledBetween } from '../load/cgroup.ts';
import { Counts, type CountsPerAnswer, perAnswer, type Snapshot } from '../load/counts.ts';
import { CpuMeter, type CpuTimes, childrenOf, cmdline, pidListeningOn } from '../load/cpu.ts';
import { type Footprint, FootprintMeter } from '../load/footprint.ts';
import { forkGenerator, type LoadPlan, type LoadResult, type Received } from '../load/generator.ts';
import { FAST_QUERY, LLM_READ, LLM_WRITE } from '../load/llm.ts';
import { type LoadSystem, startLoadSystem } from '../load/system.ts';
import type { Suite } from '../run.ts';
import { percentile } from '../stats.ts';

/** Clients at once, and the lengths of the warm-up and of the measured window (env overrides). */
export const CONCURRENCY = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 50);
export const WARMUP_MS = Number(process.env.BENCH_LOAD_WARMUP_MS ?? 3_000);
export const DURATION_MS = Number(process.env.BENCH_LOAD_DURATION_MS ?? 12_000);
/** How long the logger may take, after the load, to store the events the clients saw. */
const STORE_DEADLINE_MS = 60_000;
const RESULTS = fileURLToPath(new URL('../results/', import.meta.url));
/** Which of the stack's scenarios run (`fast,cached,mixed`; the anchor always does). */
const ONLY = new Set((process.env.BENCH_LOAD_ONLY ?? 'fast,cached,mixed').split(',').map((s) => s.trim()));
/** A commit to measure the same scenarios on first, in the same run: the A of an A/B comparison. */
const BASE_REF = process.env.BENCH_LOAD_BASE;
/** The B of the comparison when it is not this checkout: another commit, to measure one change against its parent. */
const HEAD_REF = process.env.BENCH_LOAD_HEAD;
/** A folder for each service's V8 CPU profile (`--cpu-prof`), written as the services stop. */
const CPU_PROF_DIR = process.env.BENCH_LOAD_CPU_PROF;

export const tenant = { entityId: 'bench-load', orgId: 'bench-load' };
/** One address sends all the load: the per-caller limits of a gateway would refuse most of it. */
const UNLIMITED = { MAX_STREAMS_PER_KEY: '100000', RATE_LIMIT_MAX: '100000000' };

/** The rows of the CPU table, in this order (others follow). */
export const PROCESS_ORDER = [
  'gateway',
  'router',
  'agent',
  'validator',
  'mcp-executor',
  'logger',
  'demo-books',
  'scripted-llm',
  'nats-server',
  'postgres: backends (bench db)',
  'postgres: postmaster + background',
  'anchor (fastify)',
];
/** Measured but not part of the system under test. */
export const OUTSIDE = ['load generator', 'bench harness', 'postgres: backends (other dbs)'];

interface CpuRow {
  ms: number;
  processes: number;
  msPerAnswer: number;
}

interface EventsCheck {
  requests: number;
  /** Events with an id the clients received, rows of request_events for those requests, and the difference. */
  sent: number;
  stored: number;
  missing: number;
  missingExamples: string[];
  waitedMs: number;
}

export interface ScenarioReport {
  name: string;
  description: string;
  answers: number;
  windowMs: number;
  answersPerSecond: number;
  ratioToAnchor: number | null;
  errors: number;
  failures: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  bytesPerAnswer: number;
  /** One answer measured apart: its rendered text, and its stream as a default and as a compact client get it. */
  oneAnswer?: AnswerBytes;
  eventsPerAnswer: number;
  statuses: Record<string, number>;
  paths: Record<string, number>;
  steps: Record<string, { answers: number; p50: number; p99: number }>;
  cpu: Record<string, CpuRow>;
  /** CPU of the system under test per answer (every row but the generator, the harness and other databases). */
  cpuMsPerAnswer: number;
  /** CPU of everything measured per second of the window: cores kept busy. */
  coresBusy: number;
  /** The same for the whole machine (`cores` of them), whatever else ran on it included. */
  machineCoresBusy: number;
  events: EventsCheck | null;
  serviceErrorLines: number | null;
  problems: string[];
  /** SQL statements and NATS messages per answer over the window, by service (not for the anchor). */
  counts?: CountsPerAnswer;
  /** What the whole run cost NATS storage and PostgreSQL (not for the anchor). */
  footprint?: Footprint;
  /** Under per-instance CPU limits: how often each service's instances used all of theirs, in the window. */
  throttling?: Record<string, Throttling>;
}

/** The machine's NATS and PostgreSQL: the processes listening on their ports (shared, measured anyway). */
export function infrastructure(databaseUrl: string) {
  const natsPort = Number(
    new URL((process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(',')[0] ?? '').port || 4222,
  );
  const nats = pidListeningOn(natsPort);
  const postmaster = pidListeningOn(Number(new URL(databaseUrl).port || 5432));
  const notes: string[] = [];
  if (!nats) notes.push(`no local process listens on NATS port ${natsPort}: nats-server not measured`);
  if (!postmaster) notes.push('no local process listens on the PostgreSQL port: PostgreSQL not measured');
  return { nats, postmaster, notes };
}

/** Every PostgreSQL process, named by what it serves (a backend's title holds its database). */
function postgresProcesses(
  postmaster: number | undefined,
  database: string | undefined,
): Map<number, string> {
  const out = new Map<number, string>();
  if (!postmaster) return out;
  out.set(postmaster, 'postgres: postmaster + background');
  for (const pid of childrenOf(postmaster)) {
    const title = ` ${cmdline(pid)} `;
    if (database && title.includes(` ${database} `)) out.set(pid, 'postgres: backends (bench db)');
    else if (/ \S+ \S+ (?:\S+\(\d+\)|\[local\]) /.test(title)) out.set(pid, 'postgres: backends (other dbs)');
    else out.set(pid, 'postgres: postmaster + background');
  }
  return out;
}

/** Waits until the logger has stored the events the clients received (or the deadline), and compares. */
async function checkEvents(databaseUrl: string, received: Received[]): Promise<EventsCheck> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const ids = [...new Set(received.map((r) => r.requestId))];
  const sent = new Set(received.flatMap((r) => r.seqs.map((s) => `${r.requestId}:${s}`)));
  const started = performance.now();
  let stored = new Set<string>();
  let rows = 0;
  try {
    let lastGrowth = performance.now();
    while (true) {
      const res = await pool.query<{ key: string }>(
        `select request_id || ':' || seq as key from request_events where request_id = any($1::text[])`,
        [ids],
      );
      if (res.rows.length > rows) lastGrowth = performance.now();
      rows = res.rows.length;
      stored = new Set(res.rows.map((r) => r.key));
      const missing = [...sent].filter((k) => !stored.has(k)).length;
      const now = performance.now();
      if (missing === 0 || now - started > STORE_DEADLINE_MS || now - lastGrowth > 10_000) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await pool.end();
  }
  const missing = [...sent].filter((k) => !stored.has(k));
  return {
    requests: ids.length,
    sent: sent.size,
    stored: rows,
    missing: missing.length,
    missingExamples: missing.slice(0, 5),
    waitedMs: Math.round(performance.now() - started),
  };
}

interface Target {
  name: string;
  description: string;
  url: LoadPlan['url'];
  flow: LoadPlan['flow'];
  /** The processes of what is measured (the stack's, or the anchor's). */
  processes: () => Map<number, string>;
  databaseName?: string;
  /** Whether the clients' events go to the events check (not for the anchor). */
  record: boolean;
  /** The warm-up before the window, when not WARMUP_MS. */
  warmupMs?: number | undefined;
  /** Called as the window opens and as it closes. */
  onEdge?: (edge: 'window-open' | 'window-close') => void;
  /** Where the services count statements and messages, and the system's streams (not for the anchor). */
  counts?: { reader: Counts; natsUrl: string; prefix: string };
}

async function measure(target: Target, infra: ReturnType<typeof infrastructure>) {
  let generator: number | undefined;
  const discover = () => {
    const out = new Map<number, string>([[process.pid, 'bench harness']]);
    for (const [pid, label] of target.processes()) out.set(pid, label);
    if (infra.nats) out.set(infra.nats, 'nats-server');
    for (const [pid, label] of postgresProcesses(infra.postmaster, target.databaseName)) out.set(pid, label);
    if (generator) out.set(generator, 'load generator');
    return out;
  };
  const meter = new CpuMeter(discover);
  let cpu: CpuTimes | undefined;
  const snapshots: Promise<Snapshot>[] = [];
  const snapshot = () => {
    const c = target.counts;
    if (c) snapshots.push(c.reader.snapshot(target.processes(), c.natsUrl, c.prefix));
  };
  const result = await forkGenerator(
    {
      url: target.url,
      concurrency: CONCURRENCY,
      warmupMs: target.warmupMs ?? WARMUP_MS,
      durationMs: DURATION_MS,
      flow: target.flow,
      record: target.record,
    },
    {
      onStart: (child) => {
        generator = child.pid;
      },
      onEdge: (edge) => {
        if (edge === 'window-open') meter.start();
        else cpu = meter.stop();
        snapshot();
        target.onEdge?.(edge);
      },
    },
  );
  if (!cpu) throw new Error(`${target.name}: the measuring window never closed`);
  const [open, close] = await Promise.all(snapshots);
  const counts = open && close ? perAnswer(open, close, result.window.answers) : undefined;
  return { result, cpu, counts };
}

function summarise(
  target: Target,
  { result, cpu, counts }: { result: LoadResult; cpu: CpuTimes; counts?: CountsPerAnswer | undefined },
  events: EventsCheck | null,
  system: LoadSystem | undefined,
): ScenarioReport {
  const w = result.window;
  const answers = w.answers;
  const per = (n: number) => (answers > 0 ? n / answers : Number.NaN);
  const rows: Record<string, CpuRow> = {};
  let inside = 0;
  let all = 0;
  for (const [label, { ms, processes }] of cpu.byLabel) {
    rows[label] = { ms: Math.round(ms), processes, msPerAnswer: per(ms) };
    all += ms;
    if (!OUTSIDE.includes(label)) inside += ms;
  }
  const steps: ScenarioReport['steps'] = {};
  for (const [step, s] of Object.entries(w.steps))
    steps[step] = { answers: s.answers, p50: percentile(s.latencyMs, 50), p99: percentile(s.latencyMs, 99) };
  return {
    name: target.name,
    description: target.description,
    answers,
    windowMs: Math.round(w.ms),
    answersPerSecond: answers / (w.ms / 1000),
    ratioToAnchor: null,
    errors: w.errors,
    failures: w.failures,
    latencyMs: {
      p50: percentile(w.latencyMs, 50),
      p90: percentile(w.latencyMs, 90),
      p99: percentile(w.latencyMs, 99),
      max: percentile(w.latencyMs, 100),
    },
    bytesPerAnswer: per(w.bytes),
    eventsPerAnswer: per(w.events),
    statuses: w.statuses,
    paths: w.paths,
    steps,
    cpu: rows,
    cpuMsPerAnswer: per(inside),
    coresBusy: all / w.ms,
    machineCoresBusy: cpu.machineMs / w.ms,
    events,
    serviceErrorLines: system ? system.errorLines() : null,
    problems: result.problems,
    ...(counts ? { counts } : {}),
  };
}

/** Work on the started system before the load; what it returns joins the scenario's report. */
type Before = (system: LoadSystem) => Promise<Pick<ScenarioReport, 'oneAnswer'> | undefined>;

interface ScenarioSpec {
  name: string;
  description: string;
  llm: boolean;
  env: Record<string, string>;
  flow: LoadPlan['flow'];
  /** Instances per service (one each when not given); the clients spread round-robin over the gateways. */
  scale?: Partial<Record<ServiceName, number>>;
  /** A CPU limit on every service instance (the scale suite's); none when not given. */
  cpuLimits?: CpuLimits | undefined;
  /** The warm-up before the window, when not WARMUP_MS. */
  warmupMs?: number | undefined;
}

/**
 * Runs one scenario against a fresh system, and first against the base commit's system when
 * BENCH_LOAD_BASE names one (its report named `<scenario> @<commit>`).
 */
async function scenario(
  spec: ScenarioSpec,
  infra: ReturnType<typeof infrastructure>,
  base: BaseCheckout | undefined,
  before?: Before,
): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = [];
  if (base)
    reports.push(
      await runScenario({ ...spec, name: `${spec.name} @${base.label}` }, infra, base.root, before),
    );
  const named = head ? { ...spec, name: `${spec.name} @${head.label}` } : spec;
  reports.push(await runScenario(named, infra, head?.root, before));
  return reports;
}

/** BENCH_LOAD_HEAD's checkout, when given: run in place of this one. */
let head: BaseCheckout | undefined;

export async function runScenario(
  spec: ScenarioSpec,
  infra: ReturnType<typeof infrastructure>,
  root: string | undefined,
  before?: Before,
): Promise<ScenarioReport> {
  const started = performance.now();
  const counts = new Counts();
  const profile = counts.env(
    CPU_PROF_DIR ? `--cpu-prof --cpu-prof-dir=${CPU_PROF_DIR}/${spec.name.replace(/\W+/g, '-')}` : undefined,
  );
  const system = await startLoadSystem({
    llm: spec.llm,
    env: { ...UNLIMITED, ...profile, ...spec.env },
    root,
    ...(spec.scale ? { scale: spec.scale } : {}),
    cpuLimits: spec.cpuLimits,
  });
  try {
    console.log(`${spec.name}: system up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const throttling: Map<string, Throttling>[] = [];
    const extra = await before?.(system);
    const target: Target = {
      name: spec.name,
      description: spec.description,
      url: system.gatewayUrls,
      flow: spec.flow,
      processes: system.processes,
      databaseName: system.databaseName,
      record: true,
      warmupMs: spec.warmupMs,
      onEdge: (edge) => {
        if (spec.cpuLimits) throttling[edge === 'window-open' ? 0 : 1] = spec.cpuLimits.throttling();
      },
      counts: {
        reader: counts,
        natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
        prefix: system.prefix,
      },
    };
    const footprint = new FootprintMeter({
      natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      prefix: system.prefix,
      databaseUrl: system.databaseUrl,
      databaseName: system.databaseName,
      natsPid: infra.nats,
    });
    await footprint.start();
    const measured = await measure(target, infra);
    const events = await checkEvents(system.databaseUrl, measured.result.received);
    const [open, close] = throttling;
    const report = {
      ...summarise(target, measured, events, system),
      ...extra,
      footprint: await footprint.read(measured.result.completed),
      ...(open && close ? { throttling: throttledBetween(open, close) } : {}),
    };
    if (report.answers === 0 || report.problems.length > 0)
      console.log(
        `${spec.name}: problems\n${[...report.problems, '--- last lines ---', ...system.tail().slice(-40)].join('\n')}`,
      );
    return report;
  } finally {
    await system.stop();
    counts.remove();
  }
}

interface AnswerBytes {
  /** The answer as rendered: the UTF-8 bytes of complete's `response`. */
  rendered: number;
  /** The whole SSE stream of the answer, for a client that asks for nothing, and for one that asks `?compact=true`. */
  stream: number;
  compactStream: number;
}

/** One answer's rendered bytes against its stream's, by default and compact. */
async function answerBytes(gatewayUrl: string): Promise<AnswerBytes> {
  const stream = await askOnce(gatewayUrl);
  const compactStream = await askOnce(gatewayUrl, '?compact=true');
  const complete = /event: complete\ndata: (.*)\n/.exec(stream)?.[1];
  const response = (JSON.parse(complete ?? '{}') as { response?: string }).response ?? '';
  return {
    rendered: Buffer.byteLength(response),
    stream: Buffer.byteLength(stream),
    compactStream: Buffer.byteLength(compactStream),
  };
}

/** One "show all invoices" answer, as the bytes of its stream. */
async function askOnce(gatewayUrl: string, options = ''): Promise<string> {
  const res = await fetch(`${gatewayUrl}/v1/query${options}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: FAST_QUERY, ...tenant }),
  });
  const stream = await res.text();
  if (!/event: complete\n/.test(stream))
    throw new Error(`"${FAST_QUERY}" did not complete:\n${stream.slice(-500)}`);
  return stream;
}

/** Writes a suite's figures, with the load's settings and the machine's cores, to bench/results; answers the file. */
export async function saveFigures(suite: string, figures: Record<string, unknown>): Promise<string> {
  const at = new Date().toISOString();
  await mkdir(RESULTS, { recursive: true });
  const file = `${RESULTS}${suite}-${at.replace(/[:.]/g, '-')}.json`;
  const settings = {
    concurrency: CONCURRENCY,
    cores: availableParallelism(),
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
  };
  await writeFile(file, `${JSON.stringify({ suite, at, ...settings, ...figures }, null, 2)}\n`);
  return file;
}

export const fmt = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits);

/** Events the logger stored against those the clients received, and how many are missing. */
export const eventsStored = (r: ScenarioReport) =>
  r.events
    ? `${r.events.stored}/${r.events.sent}${r.events.missing ? ` (${r.events.missing} MISSING)` : ''}`
    : '—';

/** The processes measured in any of the reports, in the table's order. */
export const processLabels = (reports: ScenarioReport[]) => [
  ...PROCESS_ORDER,
  ...new Set(reports.flatMap((r) => Object.keys(r.cpu)).filter((l) => !PROCESS_ORDER.includes(l))),
];

/** The throughput this system is built to reach on two cores, by scenario. */
const GOALS: Record<string, { answersPerSecond: number; p99Ms?: number; cpuMsPerAnswer?: number }> = {
  'fast path': { answersPerSecond: 200, p99Ms: 500, cpuMsPerAnswer: 10 },
  cached: { answersPerSecond: 500 },
  'mixed r/w': { answersPerSecond: 100 },
};

/** Each scenario against its goal: met or missed, by how much. */
function goalLines(reports: ScenarioReport[]): string[] {
  const lines: string[] = [];
  for (const r of reports) {
    const goal = GOALS[r.name];
    if (!goal) continue;
    const checks = [
      `${fmt(r.answersPerSecond, 1)} answers/s (goal ≥ ${goal.answersPerSecond})`,
      ...(goal.p99Ms === undefined ? [] : [`p99 ${fmt(r.latencyMs.p99)} ms (goal ≤ ${goal.p99Ms})`]),
      ...(goal.cpuMsPerAnswer === undefined
        ? []
        : [`${fmt(r.cpuMsPerAnswer, 1)} ms CPU/answer (goal ≤ ${goal.cpuMsPerAnswer})`]),
      r.events ? `events stored ${r.events.stored} of ${r.events.sent} sent` : 'events not checked',
    ];
    const met =
      r.answersPerSecond >= goal.answersPerSecond &&
      (goal.p99Ms === undefined || r.latencyMs.p99 <= goal.p99Ms) &&
      (goal.cpuMsPerAnswer === undefined || r.cpuMsPerAnswer <= goal.cpuMsPerAnswer) &&
      r.events !== null &&
      r.events.missing === 0;
    lines.push(`goal, ${r.name}: ${met ? 'met' : 'MISSED'}: ${checks.join('; ')}`);
  }
  return lines;
}

function printTable(reports: ScenarioReport[]): void {
  const table: Record<string, Record<string, string>> = {};
  const row = (name: string, value: (r: ScenarioReport) => string) => {
    table[name] = Object.fromEntries(reports.map((r) => [r.name, value(r)]));
  };
  row('answers/s', (r) => fmt(r.answersPerSecond, 1));
  row('answers/s ÷ anchor', (r) =>
    r.name === 'anchor' ? 'anchor' : r.ratioToAnchor === null ? '—' : `${fmt(r.ratioToAnchor * 100, 2)} %`,
  );
  row('answers (errors, failures)', (r) => `${r.answers} (${r.errors}, ${r.failures})`);
  row('p50 ms to complete', (r) => fmt(r.latencyMs.p50, 1));
  row('p99 ms to complete', (r) => fmt(r.latencyMs.p99, 1));
  row('SSE bytes/answer', (r) => fmt(r.bytesPerAnswer));
  row('one answer: rendered bytes', (r) => fmt(r.oneAnswer?.rendered));
  row('one answer: stream ÷ rendered', (r) =>
    r.oneAnswer ? fmt(r.oneAnswer.stream / r.oneAnswer.rendered, 2) : '—',
  );
  row('one answer: compact stream ÷ rendered', (r) =>
    r.oneAnswer ? fmt(r.oneAnswer.compactStream / r.oneAnswer.rendered, 2) : '—',
  );
  row('SSE events/answer', (r) => fmt(r.eventsPerAnswer, 1));
  row('events stored/sent', eventsStored);
  for (const label of processLabels(reports)) {
    if (!reports.some((r) => r.cpu[label])) continue;
    row(`CPU ms/answer: ${label}`, (r) => fmt(r.cpu[label]?.msPerAnswer, 3));
  }
  row('CPU ms/answer: system total', (r) => fmt(r.cpuMsPerAnswer, 3));
  const countRows = (title: string, of: (c: CountsPerAnswer) => Record<string, number>) => {
    const keys = new Set(reports.flatMap((r) => (r.counts ? Object.keys(of(r.counts)) : [])));
    const ordered = [
      ...PROCESS_ORDER.filter((l) => keys.has(l)),
      ...[...keys].filter((l) => !PROCESS_ORDER.includes(l)),
    ];
    for (const key of ordered)
      row(`${title}: ${key}`, (r) => fmt(r.counts ? of(r.counts)[key] : undefined, 2));
  };
  countRows('SQL statements/answer', (c) => c.sql);
  countRows('NATS msgs sent/answer', (c) => c.natsOut);
  row('NATS msgs received/answer: total', (r) => fmt(r.counts?.natsIn.total, 2));
  countRows('JetStream msgs stored/answer', (c) => c.streams);
  row('cores busy: all measured', (r) => fmt(r.coresBusy, 2));
  row(`cores busy: machine (of ${availableParallelism()})`, (r) => fmt(r.machineCoresBusy, 2));
  console.table(table);
}

/**
 * The whole system under 50 concurrent SSE clients, in three scenarios, against a
 * bare fastify route streaming the same answer bytes from memory (the anchor), each in the same run.
 * The load comes from a generator in its own process; CPU time is read from /proc for every process,
 * the machine's NATS and PostgreSQL included (shared: they count whatever else runs on them).
 */
export const loadSuite: Suite = {
  name: 'load',
  async run() {
    const started = performance.now();
    console.log(
      `${CONCURRENCY} SSE clients, ${WARMUP_MS / 1000} s warm-up, ${DURATION_MS / 1000} s measured per scenario`,
    );
    const infra = infrastructure(process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://127.0.0.1:5432/postgres');
    for (const note of infra.notes) console.log(`note: ${note}`);
    const reports: ScenarioReport[] = [];
    const base = BASE_REF ? await checkoutBase(BASE_REF) : undefined;
    head = HEAD_REF ? await checkoutBase(HEAD_REF) : undefined;
    if (base)
      console.log(
        `A/B: each scenario on ${BASE_REF} (${base.label}, in ${base.root}), then on ${head ? `${HEAD_REF} (${head.label})` : 'this checkout'}`,
      );

    // (a) The fast path, cache off; its answer's bytes are what the anchor serves.
    let anchorReport: ScenarioReport | undefined;
    if (ONLY.has('fast')) {
      let answer = '';
      reports.push(
        ...(await scenario(
          {
            name: 'fast path',
            description: `"${FAST_QUERY}", RESPONSE_CACHE=off, no model`,
            llm: false,
            env: { RESPONSE_CACHE: 'off' },
            flow: { kind: 'repeat', body: { query: FAST_QUERY, ...tenant } },
          },
          infra,
          base,
          async (system) => {
            answer = await askOnce(system.gatewayUrl);
            return { oneAnswer: await answerBytes(system.gatewayUrl) };
          },
        )),
      );

      // The anchor: the same bytes from memory, same generator, same concurrency.
      const anchor = await forkAnchor(answer);
      try {
        const target: Target = {
          name: 'anchor',
          description: `bare fastify route streaming one "${FAST_QUERY}" answer (${Buffer.byteLength(answer)} bytes) from memory`,
          url: anchor.url,
          flow: { kind: 'repeat', body: { query: FAST_QUERY, ...tenant } },
          processes: () => new Map(anchor.child.pid ? [[anchor.child.pid, 'anchor (fastify)']] : []),
          record: false,
        };
        anchorReport = summarise(target, await measure(target, infra), null, undefined);
      } finally {
        await anchor.stop();
      }
      reports.unshift(anchorReport);
    }

    // (b) The cached path: the cache on (the default), the same question over and over.
    if (ONLY.has('cached'))
      reports.push(
        ...(await scenario(
          {
            name: 'cached',
            description: `"${FAST_QUERY}" repeated, RESPONSE_CACHE=on, no model`,
            llm: false,
            env: { RESPONSE_CACHE: 'on' },
            flow: { kind: 'repeat', body: { query: FAST_QUERY, ...tenant } },
          },
          infra,
          base,
          // One answer first, so the load finds it cached rather than fifty misses at once.
          async (system) => {
            await askOnce(system.gatewayUrl);
            return { oneAnswer: await answerBytes(system.gatewayUrl) };
          },
        )),
      );

    // (c) Mixed: a fast-path read, a model read, and a write proposed and confirmed (mcqResponse).
    if (ONLY.has('mixed'))
      reports.push(
        ...(await scenario(
          {
            name: 'mixed r/w',
            description:
              'per client, in turn: a fast-path read, a read by the scripted model (one tool call), and a create_customer proposed and confirmed with mcqResponse; RESPONSE_CACHE=off',
            llm: true,
            env: { RESPONSE_CACHE: 'off' },
            flow: { kind: 'mixed', tenant, reads: [FAST_QUERY, LLM_READ], write: LLM_WRITE },
          },
          infra,
          base,
        )),
      );

    for (const r of reports)
      r.ratioToAnchor =
        r.name === 'anchor' || !anchorReport ? null : r.answersPerSecond / anchorReport.answersPerSecond;
    for (const r of reports) console.log(`${r.name}: ${r.description}`);
    console.log(
      "SQL statements and NATS messages per answer: the window's, as counted in each service process (every pg query, begin/commit included; NATS client's messages in and out, JetStream API and acks included) ÷ answers; JetStream: messages each stream stored in the window ÷ answers",
    );
    printTable(reports);
    for (const line of goalLines(reports)) console.log(line);
    for (const r of reports) {
      if (Object.keys(r.steps).length > 1)
        console.log(
          `${r.name} by step: ${Object.entries(r.steps)
            .map(([s, f]) => `${s} ${f.answers} answers, p50 ${fmt(f.p50, 1)} ms, p99 ${fmt(f.p99, 1)} ms`)
            .join('; ')}`,
        );
      console.log(`${r.name} paths: ${JSON.stringify(r.paths)} statuses: ${JSON.stringify(r.statuses)}`);
      if (r.events?.missing)
        console.log(
          `${r.name}: events missing from request_events, e.g. ${r.events.missingExamples.join(', ')}`,
        );
    }
    const file = await saveFigures('load', {
      base: base ? { ref: BASE_REF, commit: base.label } : null,
      head: head ? { ref: HEAD_REF, commit: head.label } : null,
      notes: infra.notes,
      scenarios: reports,
    });
    console.log(`figures: ${file} (whole suite ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  },
};
