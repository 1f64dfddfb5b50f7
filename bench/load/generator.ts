/**
 * The load generator of the load benchmark, run in its own process (`forkGenerator`): a closed loop
 * of `concurrency` SSE clients, each POSTing to /v1/query and reading the text/event-stream
 * response to its `complete` or `error` event (and the stream's end) before its next request.
 * After `warmupMs` it opens the measuring window for `durationMs` (telling the parent at both
 * edges, so the parent can read CPU times there); then no request is started and those in flight
 * are read to their end. An answer is a stream that ended with `complete`; it counts in the window
 * when its `complete` arrived in the window.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createParser } from 'eventsource-parser';

export interface Tenant {
  entityId: string;
  orgId: string;
}

/** What each client does, over and over. */
export type Flow =
  /** The same POST body every time. */
  | { kind: 'repeat'; body: Record<string, unknown> }
  /**
   * Each read once, then a write: `write` (with `{tag}` replaced by a fresh tag) in a new
   * conversation, and when it ends awaiting confirmation, its `mcqResponse` confirming it.
   */
  | { kind: 'mixed'; tenant: Tenant; reads: string[]; write: string };

export interface LoadPlan {
  /**
   * Base URL of the server (its /v1/query is driven); or several servers' (instances of one
   * service), spread round-robin over the clients: client i drives the (i mod n)th for the whole run.
   */
  url: string | string[];
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  flow: Flow;
  /** Longest one request may take before it counts as failed. */
  requestTimeoutMs?: number;
  /** Whether to return the events each request brought (`received`); default true. */
  record?: boolean;
}

/** What one stream brought, by the label of its step (read, proposal, confirmation). */
export interface StepFigures {
  answers: number;
  latencyMs: number[];
}

export interface WindowFigures {
  /** The window's length, from its opening to its close. */
  ms: number;
  /** Streams that ended with `complete` in the window. */
  answers: number;
  /** Streams that ended with `error` in the window. */
  errors: number;
  /** Requests that ended without `complete` or `error` (HTTP refusal, broken stream) in the window. */
  failures: number;
  /** Milliseconds from sending the POST to its `complete`, per answer. */
  latencyMs: number[];
  /** Response body bytes (the SSE stream) of the window's answers. */
  bytes: number;
  /** SSE events of the window's answers. */
  events: number;
  /** The `complete` statuses of the window's answers. */
  statuses: Record<string, number>;
  /** The `route_classified` paths (fast, llm, cached) of the window's answers. */
  paths: Record<string, number>;
  steps: Record<string, StepFigures>;
}

/** The events with an id (the request's own, stored by the logger) a client saw of one request. */
export interface Received {
  requestId: string;
  seqs: number[];
}

export interface LoadResult {
  window: WindowFigures;
  /** Every request of the run, warm-up and drain included. */
  received: Received[];
  /** Requests started in all, and streams that ended with `complete`. */
  requests: number;
  completed: number;
  /** The first few distinct problems (refusals, errors, broken streams). */
  problems: string[];
}

/** Parent ← generator messages. */
type Message =
  | { type: 'window-open' }
  | { type: 'window-close' }
  | { type: 'result'; result: LoadResult }
  | { type: 'failed'; message: string };

interface Seen {
  status: number;
  requestId: string | undefined;
  seqs: number[];
  events: number;
  bytes: number;
  end: { event: 'complete' | 'error'; data: Record<string, unknown>; at: number } | undefined;
  mcqActionId: string | undefined;
  path: string | undefined;
  problem: string | undefined;
}

const MAX_PROBLEMS = 10;

/** The /v1/query URL client `index` (from 0) drives: round-robin over the plan's base URLs. */
export function clientTarget(url: LoadPlan['url'], index: number): URL {
  const urls = typeof url === 'string' ? [url] : url;
  const base = urls[index % urls.length];
  if (base === undefined) throw new Error('a load plan needs at least one URL');
  return new URL('/v1/query', base);
}

/** Runs the plan in this process; `onEdge` is told when the window opens and closes. */
export async function runLoad(
  plan: LoadPlan,
  onEdge: (edge: 'window-open' | 'window-close') => void = () => {},
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: plan.concurrency });
  const timeoutMs = plan.requestTimeoutMs ?? 60_000;
  const record = plan.record ?? true;
  const window: WindowFigures = {
    ms: 0,
    answers: 0,
    errors: 0,
    failures: 0,
    latencyMs: [],
    bytes: 0,
    events: 0,
    statuses: {},
    paths: {},
    steps: {},
  };
  const received: Received[] = [];
  const problems = new Set<string>();
  let requests = 0;
  let completed = 0;
  let phase: 'warmup' | 'window' | 'drain' = 'warmup';

  const post = (target: URL, body: Record<string, unknown>): Promise<Seen> =>
    new Promise((resolve) => {
      const payload = JSON.stringify(body);
      const started = performance.now();
      const seen: Seen = {
        status: 0,
        requestId: undefined,
        seqs: [],
        events: 0,
        bytes: 0,
        end: undefined,
        mcqActionId: undefined,
        path: undefined,
        problem: undefined,
      };
      let settled = false;
      const done = (problem?: string) => {
        if (settled) return;
        settled = true;
        if (problem && !seen.end) seen.problem = problem;
        resolve(seen);
      };
      const req = request(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            accept: 'text/event-stream',
          },
        },
        (res) => {
          seen.status = res.statusCode ?? 0;
          if (seen.status !== 200 || !res.headers['content-type']?.startsWith('text/event-stream')) {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
            });
            res.on('end', () => done(`HTTP ${seen.status}: ${text.slice(0, 200)}`));
            res.on('error', (error) => done(`HTTP ${seen.status}: ${String(error)}`));
            return;
          }
          const parser = createParser({
            onEvent: (e) => {
              seen.events += 1;
              const type = e.event ?? 'message';
              if (e.id === undefined) {
                // The gateway ended the stream itself (a timeout, shutdown): not the request's own.
                seen.problem ??= `gateway-side ${type}: ${e.data.slice(0, 200)}`;
                return;
              }
              seen.seqs.push(Number(e.id));
              if (type === 'connected') seen.requestId = String(JSON.parse(e.data).requestId);
              else if (type === 'mcq') seen.mcqActionId = String(JSON.parse(e.data).actionId);
              else if (type === 'route_classified') seen.path = String(JSON.parse(e.data).path);
              else if ((type === 'complete' || type === 'error') && !seen.end)
                seen.end = { event: type, data: JSON.parse(e.data), at: performance.now() - started };
            },
          });
          const decoder = new TextDecoder();
          res.on('data', (chunk: Buffer) => {
            seen.bytes += chunk.length;
            parser.feed(decoder.decode(chunk, { stream: true }));
          });
          res.on('end', () => done(seen.end ? undefined : 'the stream ended without complete or error'));
          res.on('error', (error) => done(`stream broke: ${String(error)}`));
        },
      );
      req.setTimeout(timeoutMs, () => {
        req.destroy(new Error(`no end within ${timeoutMs} ms`));
      });
      req.on('error', (error) => done(`request failed: ${String(error)}`));
      req.end(payload);
    });

  /** Counts one finished request; true when it ended with `complete`. */
  const count = (step: string, seen: Seen): boolean => {
    requests += 1;
    if (record && seen.requestId) received.push({ requestId: seen.requestId, seqs: seen.seqs });
    if (seen.problem && problems.size < MAX_PROBLEMS) problems.add(`${step}: ${seen.problem}`);
    if (seen.end?.event === 'error' && problems.size < MAX_PROBLEMS)
      problems.add(`${step}: error ${JSON.stringify(seen.end.data).slice(0, 200)}`);
    const ok = seen.end?.event === 'complete';
    if (ok) completed += 1;
    // In the window: what ended in it (an answer by the time its `complete` came).
    if (phase !== 'window') return ok;
    if (!seen.end) {
      window.failures += 1;
      return ok;
    }
    if (!ok) {
      window.errors += 1;
      return ok;
    }
    window.answers += 1;
    window.latencyMs.push(seen.end.at);
    window.bytes += seen.bytes;
    window.events += seen.events;
    const status = String(seen.end.data.status);
    window.statuses[status] = (window.statuses[status] ?? 0) + 1;
    const path = seen.path ?? 'none';
    window.paths[path] = (window.paths[path] ?? 0) + 1;
    const figures = window.steps[step] ?? { answers: 0, latencyMs: [] };
    figures.answers += 1;
    figures.latencyMs.push(seen.end.at);
    window.steps[step] = figures;
    return ok;
  };

  const running = () => phase !== 'drain';
  const flow = plan.flow;
  const client = async (_: unknown, index: number) => {
    const target = clientTarget(plan.url, index);
    while (running()) {
      if (flow.kind === 'repeat') {
        count('query', await post(target, flow.body));
        continue;
      }
      for (const [i, query] of flow.reads.entries()) {
        if (!running()) return;
        count(`read ${i + 1}`, await post(target, { query, ...flow.tenant }));
      }
      if (!running()) return;
      const tag = randomBytes(5).toString('hex');
      const conversationId = `bench-${tag}`;
      const proposal = await post(target, {
        query: flow.write.replace('{tag}', tag),
        conversationId,
        ...flow.tenant,
      });
      const proposed = count('write proposal', proposal);
      const awaiting = proposal.end?.data.status === 'awaiting_confirmation';
      if (!proposed || !awaiting || !proposal.mcqActionId || !running()) continue;
      const mcqResponse = { actionId: proposal.mcqActionId, value: 'confirm' };
      count('write confirmation', await post(target, { conversationId, mcqResponse, ...flow.tenant }));
    }
  };

  const clients = Array.from({ length: plan.concurrency }, client);
  await new Promise((r) => setTimeout(r, plan.warmupMs));
  const opened = performance.now();
  phase = 'window';
  onEdge('window-open');
  await new Promise((r) => setTimeout(r, plan.durationMs));
  phase = 'drain';
  window.ms = performance.now() - opened;
  onEdge('window-close');
  await Promise.all(clients);
  agent.destroy();
  return { window, received, requests, completed, problems: [...problems] };
}

/**
 * Runs the plan in a process of its own; `onEdge` is called when the window opens and closes
 * (as soon as the generator says so). The generator's pid is given to `onStart`.
 */
export function forkGenerator(
  plan: LoadPlan,
  hooks: { onStart?: (child: ChildProcess) => void; onEdge?: (edge: 'window-open' | 'window-close') => void },
): Promise<LoadResult> {
  const child = fork(new URL(import.meta.url).pathname, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  hooks.onStart?.(child);
  return new Promise((resolve, reject) => {
    child.on('message', (m: Message) => {
      if (m.type === 'window-open' || m.type === 'window-close') hooks.onEdge?.(m.type);
      else if (m.type === 'result') resolve(m.result);
      else reject(new Error(`load generator: ${m.message}`));
    });
    // 'close': after the last message has been delivered.
    child.on('close', (code) => reject(new Error(`load generator exited (${code}) without a result`)));
    child.send(plan);
  });
}

if (import.meta.main) {
  const send = (m: Message) => new Promise((resolve) => process.send?.(m, undefined, {}, resolve));
  process.once('message', (plan: LoadPlan) => {
    runLoad(plan, (edge) => void send({ type: edge }))
      .then((result) => send({ type: 'result', result }))
      .catch((error: unknown) => send({ type: 'failed', message: String(error) }))
      .finally(() => process.disconnect());
  });
}
