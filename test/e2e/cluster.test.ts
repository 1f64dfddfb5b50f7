/**
 * munim on a three-node JetStream cluster. Three local nats-server processes form
 * one cluster; the six services run against all three (`NATS_URL` lists them) with
 * `NATS_STREAM_REPLICAS=3`. Under a bounded load of fast-path reads and confirmed writes one server
 * is killed (`SIGKILL`), the load goes on, it comes back and catches up, and then another one is
 * killed. Every request ends with `complete` or `error` on the stream its client opened, every
 * event a client saw (and every event the stream holds for these requests) is in PostgreSQL, and
 * no write runs twice.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastUserText } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createParser } from 'eventsource-parser';
import { afterAll, describe, expect } from 'vitest';
import { eventsOf } from '../../packages/bus/src/index.ts';
import { type NatsCluster, startNatsCluster } from '../../packages/bus/test/nats-cluster.ts';
import type { SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const tenant = { entityId: 'ent-cluster', orgId: 'org-cluster' };
/** Flows running at once, and the most started in all (the load stops when the kills are done). */
const CONCURRENCY = 4;
const MAX_FLOWS = 150;
/** Longest one request may take to end, failovers included. */
const REQUEST_DEADLINE_MS = 40_000;
/** Longest a restarted server may take to catch up with its streams and consumers. */
const CATCH_UP_MS = 30_000;
const WRITE_TOOL = 'create_customer';

let cluster: NatsCluster | undefined;
let sys: TestSystem | undefined;
let nc: NatsConnection | undefined;
let jsm: JetStreamManager;

const streams = () => ['WORK', 'EVENTS'].map((s) => `${sys?.prefix.toUpperCase()}_${s}`);

test.beforeAll(async ({ database }) => {
  cluster = await startNatsCluster();
  // The database is the test kit's; NATS is this test's own cluster.
  sys = await startSystem({
    database,
    env: {
      NATS_URL: cluster.url,
      NATS_STREAM_REPLICAS: '3',
      // Every read goes through router, agent, validator and executor.
      RESPONSE_CACHE: 'off',
      // Work whose ack died with a server comes back within seconds, not the production minute.
      AGENT_ACK_WAIT_MS: '5000',
      ROUTER_ACK_WAIT_MS: '5000',
      LOGGER_ACK_WAIT_MS: '3000',
    },
  });
  nc = await connect({ servers: cluster.nodes.map((n) => n.url) });
  jsm = await jetstreamManager(nc);
  scriptLlm();
}, 90_000);

afterAll(async () => {
  await nc?.close();
  await sys?.stop();
  await cluster?.stop();
});

/** The model as a function of the request, so a request redone after a failover gets the same answers. */
function scriptLlm() {
  sys?.llm?.script({
    match: 'please create customer cluster-',
    repeat: true,
    turns: [
      (req) => {
        if (req.messages.some((m) => m.role === 'tool')) return { content: 'Done.' };
        const name = /customer (cluster-[a-z0-9]+)/.exec(lastUserText(req))?.[1];
        return { toolCalls: [{ name: WRITE_TOOL, arguments: { Name: name } }] };
      },
    ],
  });
  sys?.llm?.script({
    match: 'show all invoices',
    repeat: true,
    turns: [{ content: 'Here are all your invoices.' }],
  });
}

/** What a client saw of one request. */
interface Seen {
  label: string;
  requestId: string | undefined;
  events: SseEvent[];
  end: SseEvent | undefined;
  problems: string[];
}

const TERMINAL = new Set(['complete', 'error']);

/** POSTs one query and reads its stream to the end (or the deadline), without resuming. */
async function request(label: string, body: Record<string, unknown>): Promise<Seen> {
  const seen: Seen = { label, requestId: undefined, events: [], end: undefined, problems: [] };
  try {
    const res = await fetch(`${sys?.gatewayUrl}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    });
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
      seen.problems.push(`HTTP ${res.status} ${await res.text().catch(() => '')}`);
      return seen;
    }
    const parser = createParser({
      onEvent: (e) => {
        const event = { id: e.id, event: e.event ?? 'message', data: JSON.parse(e.data) };
        if (seen.end) return;
        if (event.id === undefined) {
          // The gateway ended the stream itself (a timeout, a broken follow): not the request's end.
          seen.problems.push(`gateway-side ${event.event} ${JSON.stringify(event.data)}`);
          return;
        }
        seen.events.push(event);
        if (event.event === 'connected') seen.requestId = String(event.data.requestId);
        if (TERMINAL.has(event.event)) seen.end = event;
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (error) {
    seen.problems.push(`stream broke: ${String(error)}`);
  }
  if (!seen.end && seen.problems.length === 0)
    seen.problems.push(`no complete or error (last event: ${seen.events.at(-1)?.event ?? 'none'})`);
  const ids = seen.events.map((e) => Number(e.id));
  if (ids.some((id, i) => i > 0 && id <= (ids[i - 1] ?? 0)))
    seen.problems.push(`event ids not increasing: ${ids.join(',')}`);
  return seen;
}

type Kind = 'read' | 'write';
interface Flow {
  kind: Kind;
  name?: string;
  requests: Seen[];
}

/** Of every three flows two are fast-path reads and one a write, proposed and confirmed with `mcqResponse`. */
async function runFlow(index: number): Promise<Flow> {
  const tag = randomBytes(5).toString('hex');
  if (index % 3 !== 0) {
    const read = await request(`#${index} read`, { query: 'show all invoices', ...tenant });
    return { kind: 'read', requests: [read] };
  }
  const name = `cluster-${tag}`;
  const conversationId = `cluster-${tag}`;
  const proposal = await request(`#${index} proposal of ${name}`, {
    query: `please create customer ${name}`,
    conversationId,
    ...tenant,
  });
  const flow: Flow = { kind: 'write', name, requests: [proposal] };
  const mcq = proposal.events.find((e) => e.event === 'mcq');
  const actionId = proposal.end?.event === 'complete' ? mcq?.data.actionId : undefined;
  if (typeof actionId !== 'string') return flow;
  flow.requests.push(
    await request(`#${index} confirmation of ${name}`, {
      ...tenant,
      conversationId,
      mcqResponse: { actionId, value: 'confirm' },
    }),
  );
  return flow;
}

/** The leader of a stream, by node name. */
async function leaderOf(stream: string): Promise<string | undefined> {
  return (await jsm.streams.info(stream)).cluster?.leader;
}

/** The durable consumers of munim's streams (the gateway's followers are ephemeral, one copy). */
async function durables() {
  const found = [];
  for (const stream of streams())
    for await (const ci of jsm.consumers.list(stream)) if (ci.config.durable_name) found.push(ci);
  return found;
}

/** Every stream and durable consumer has a leader and every replica is current (bounded). */
async function waitCaughtUp(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const groups = [
        ...(await Promise.all(streams().map((s) => jsm.streams.info(s)))),
        ...(await durables()),
      ];
      const behind = groups.filter(
        (g) => !g.cluster?.leader || (g.cluster.replicas ?? []).some((r) => !r.current || r.offline),
      );
      if (behind.length === 0) return;
      last = JSON.stringify(behind.map((g) => g.cluster));
    } catch (error) {
      last = String(error);
    }
    await sleep(250);
  }
  throw new Error(`the cluster did not catch up within ${timeoutMs} ms: ${last}`);
}

/** Three replicas of each stream and of each durable consumer: a leader and two more. */
async function expectThreeReplicas() {
  for (const stream of streams()) {
    const info = await jsm.streams.info(stream);
    expect(info.config.num_replicas, stream).toBe(3);
    expect(info.cluster?.replicas, stream).toHaveLength(2);
  }
  const consumers = await durables();
  expect(consumers.map((c) => c.name)).toEqual(expect.arrayContaining(['agent', 'logger', 'router']));
  for (const ci of consumers) {
    expect(ci.config.num_replicas, ci.name).toBe(3);
    expect(ci.cluster?.replicas, ci.name).toHaveLength(2);
  }
}

describe('a three-node JetStream cluster', () => {
  test('keeps every stream on three servers, and loses nothing while servers die and come back', async () => {
    if (!sys || !cluster) throw new Error('not started');
    const system = sys;
    const nodes = cluster;
    await expectThreeReplicas();

    const started = Date.now();
    const flows: Flow[] = [];
    const timeline: string[] = [];
    const mark = (what: string) => timeline.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${what}`);
    let loadOn = true;
    let next = 0;
    const worker = async () => {
      while (loadOn && next < MAX_FLOWS) flows.push(await runFlow(next++));
    };

    const chaos = async () => {
      await sleep(3_000);
      // The leader of the events stream first: the stream (and maybe the meta layer) elects anew.
      const eventsLeader = await leaderOf(streams()[1] as string);
      const a = Math.max(
        0,
        nodes.nodes.findIndex((n) => n.name === eventsLeader),
      );
      await nodes.kill(a);
      mark(`killed ${nodes.nodes[a]?.name} (leader of EVENTS)`);
      await sleep(6_000);
      await nodes.restart(a);
      mark(`restarted ${nodes.nodes[a]?.name}`);
      await waitCaughtUp(CATCH_UP_MS);
      mark('caught up');
      await sleep(2_000);
      // Then another one: the leader of the work stream, unless that is the one that came back.
      const workLeader = await leaderOf(streams()[0] as string);
      let b = nodes.nodes.findIndex((n, i) => n.name === workLeader && i !== a);
      if (b < 0) b = nodes.nodes.findIndex((_, i) => i !== a);
      await nodes.kill(b);
      mark(`killed ${nodes.nodes[b]?.name}${nodes.nodes[b]?.name === workLeader ? ' (leader of WORK)' : ''}`);
      await sleep(8_000);
      loadOn = false;
      mark('load stopped');
    };

    await Promise.all([chaos(), ...Array.from({ length: CONCURRENCY }, worker)]);
    mark('every flow ended');

    const requests = flows.flatMap((f) => f.requests);
    const problems = requests.flatMap((r) => r.problems.map((p) => `${r.label} (${r.requestId}): ${p}`));
    // What the client saw of a request that did not end, what the system stored, what it logged.
    const explain = async () => {
      const lines = [...problems, '--- timeline ---', ...timeline];
      for (const r of requests.filter((x) => x.problems.length > 0 && x.requestId)) {
        const stored = await system.db.query<{ seq: string; type: string }>(
          'select seq, type from request_events where request_id = $1 order by seq',
          [r.requestId],
        );
        lines.push(
          `--- ${r.label} ${r.requestId}`,
          `saw [${r.events.map((e) => `${e.id}:${e.event}`).join(' ')}]`,
          `stored [${stored.rows.map((e) => `${e.seq}:${e.type}`).join(' ')}]`,
          ...system.logs.filter((l) => l.includes(r.requestId as string)).map((l) => l.slice(0, 400)),
        );
      }
      return lines.join('\n');
    };

    // Every request ended with its complete or error, on the stream its client opened.
    if (problems.length > 0) expect(problems, await explain()).toEqual([]);

    // No write ran twice; one reported done ran exactly once; none ran unconfirmed.
    const calls = system.books.calls().filter((c) => c.tool === WRITE_TOOL);
    let done = 0;
    for (const flow of flows.filter((f) => f.kind === 'write')) {
      const sent = calls.filter((c) => c.args.Name === flow.name);
      const stored = system.books.store.contacts.filter((c) => c.Name === flow.name);
      expect(sent.length, `${flow.name} sent ${sent.length} times`).toBeLessThanOrEqual(1);
      expect(stored.length, `${flow.name} stored ${stored.length} times`).toBeLessThanOrEqual(1);
      const confirmation = flow.requests[1];
      if (!confirmation) {
        expect(sent, `${flow.name} ran without a confirmation`).toHaveLength(0);
        continue;
      }
      const results = confirmation.events.filter(
        (e) => e.event === 'tool_result' && e.data.tool === WRITE_TOOL,
      );
      if (results.some((e) => e.data.success === true)) {
        done += 1;
        expect(sent, `${flow.name} reported done`).toHaveLength(1);
        expect(stored, `${flow.name} reported done`).toHaveLength(1);
      }
    }
    // Not vacuous: writes were confirmed and done, and reads answered, around the kills.
    expect(done).toBeGreaterThan(0);
    const answered = flows.filter((f) => f.kind === 'read' && f.requests[0]?.end?.data.status === 'answered');
    expect(answered.length).toBeGreaterThan(0);

    // Every event a client saw, every end among them, and every event the stream holds for these
    // requests is in PostgreSQL, once the logger has caught up.
    const ids = [...new Set(requests.map((r) => r.requestId).filter((id): id is string => Boolean(id)))];
    const seen = requests.flatMap((r) => r.events.map((e) => `${r.requestId}:${e.id}:${e.event}`));
    const ends = requests.map((r) => `${r.requestId}:${r.end?.id}:${r.end?.event}`);
    const inStream = await storedEvents(system.prefix, ids);
    expect(inStream.length).toBeGreaterThanOrEqual(seen.length);
    const missing = async () => {
      const rows = await system.db.query<{ key: string }>(
        `select request_id || ':' || seq || ':' || type as key from request_events where request_id = any($1::text[])`,
        [ids],
      );
      const stored = new Set(rows.rows.map((r) => r.key));
      return {
        seen: seen.filter((key) => !stored.has(key)),
        ends: ends.filter((key) => !stored.has(key)),
        stream: inStream.filter((key) => !stored.has(key)),
      };
    };
    await expect
      .poll(missing, { timeout: 30_000, interval: 500 })
      .toEqual({ seen: [], ends: [], stream: [] });

    // Still three replicas each, one of them on the server that is down now.
    await expectThreeReplicas();

    const errors = requests.filter((r) => r.end?.event === 'error').map((r) => String(r.end?.data.code));
    const writes = flows.filter((f) => f.kind === 'write').length;
    const count = (pattern: RegExp) => system.logs.filter((l) => pattern.test(l)).length;
    console.log(
      `cluster: ${flows.length} flows (${flows.length - writes} reads, ${writes} writes, ${done} done), ` +
        `${requests.length} requests, errors [${errors.join(', ')}], ${inStream.length} events; ` +
        `${count(/message redelivered/)} redeliveries, ${count(/sent again after a reconnect/)} resent requests or replies, ` +
        `${count(/follow consumer (went silent|fell behind)/)} follows made anew, ` +
        `${count(/publish not acknowledged/)} publishes retried; ${timeline.join('; ')}; ` +
        `${Math.round((Date.now() - started) / 1000)} s`,
    );
  }, 180_000);
});

/**
 * `<requestId>:<seq>:<type>` of every event the EVENTS stream holds for these requests, read one by
 * one from the stream's leader (no consumer: with a server down, nats-server 2.9 may place a new
 * ephemeral consumer on it).
 */
async function storedEvents(prefix: string, requestIds: string[]): Promise<string[]> {
  const wanted = new Set(requestIds);
  const stream = `${prefix.toUpperCase()}_EVENTS`;
  const { first_seq: first, last_seq: last } = (await jsm.streams.info(stream)).state;
  const keys: string[] = [];
  for (let seq = first; seq <= last; seq += 1) {
    const msg = await jsm.streams.getMessage(stream, { seq });
    if (!msg) continue;
    const parsed = eventsOf(seq, msg.json());
    if (!parsed.ok) throw new Error(`stream message ${seq} is malformed: ${parsed.detail}`);
    for (const { seq: eventSeq, message } of parsed.events)
      if (wanted.has(message.requestId)) keys.push(`${message.requestId}:${eventSeq}:${message.data.type}`);
  }
  return keys;
}
