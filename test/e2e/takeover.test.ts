import { randomBytes, randomUUID } from 'node:crypto';
import { catalog, messageSchema, resolveSubject, STREAMS } from '@munim/contracts';
import type { ServiceName } from '@munim/devstack';
import { type ChatRequest, lastUserText } from '@munim/scripted-llm';
import { natsUrl, test } from '@munim/testkit';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

/**
 * One kill at a time: a confirmed write outlives the agent or executor instance
 * carrying it. Another instance finishes it — its result, or "outcome unknown" checked with a
 * read — every event of the takeover reaches the client, and the write runs once.
 */

let sys: TestSystem;
const tenant = { entityId: 'ent-takeover', orgId: 'org-takeover' };
const TOOL = 'create_customer';
/** The books hold each new customer this long: the kill lands while the write is at the books. */
const WRITE_DELAY_MS = 1500;

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({
    database,
    nats,
    env: {
      AGENT_ACK_WAIT_MS: '2000',
      MCP_WRITE_TIMEOUT_MS: '2000',
      IDEMPOTENCY_GRACE_MS: '500',
      // Longer than the executor's claim on a write (2 s session wait + write timeout + grace).
      EXECUTE_TIMEOUT_MS: '5000',
    },
  });
  sys.llm?.script({
    match: 'please create customer takeover-',
    repeat: true,
    turns: [
      (req: ChatRequest) =>
        req.messages.some((m) => m.role === 'tool')
          ? { content: 'Done.' }
          : {
              toolCalls: [
                {
                  name: TOOL,
                  arguments: { Name: /customer (takeover-[a-z0-9]+)/.exec(lastUserText(req))?.[1] },
                },
              ],
            },
    ],
  });
});

afterAll(async () => {
  await sys?.stop();
});

afterEach(() => sys.books.setFaults({}));

const steps = (events: SseEvent[]) =>
  events.filter((e) => e.event === 'confirmation').map((e) => String(e.data.step));
const results = (events: SseEvent[], tool: string) =>
  events.filter((e) => e.event === 'tool_result' && e.data.tool === tool);

/** Proposes a new customer, confirms it, and kills the `service` instance while the write is at the books. */
async function confirmAndKill(service: ServiceName) {
  const name = `takeover-${randomBytes(5).toString('hex')}`;
  const conversationId = `conv-${name}`;
  const proposal = await ask(sys.gatewayUrl, {
    query: `please create customer ${name}`,
    conversationId,
    ...tenant,
  });
  const done = proposal.events.at(-1);
  expect(done).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
  sys.books.setFaults({ delayMs: { [TOOL]: WRITE_DELAY_MS } });
  const answer = ask(sys.gatewayUrl, {
    ...tenant,
    conversationId,
    mcqResponse: { actionId: String(done?.data.actionId), value: 'confirm' },
  });
  const sent = () => sys.books.calls().filter((c) => c.tool === TOOL && c.args.Name === name);
  await expect.poll(() => sent().length).toBe(1);
  const victim = sys.stack.processes.find(
    (p) => p.service === service && p.child.exitCode === null && p.child.signalCode === null,
  );
  if (!victim) throw new Error(`no ${service} running`);
  await sys.stack.kill(victim, 'SIGKILL');
  sys.stack.spawn(service);
  const { events } = await answer;
  return { name, events, sent };
}

describe('a confirmed write outlives its instance', () => {
  test('another agent finishes it when the one carrying it dies, and every step reaches the client', async () => {
    const { name, events, sent } = await confirmAndKill('agent');
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    // The redelivery's own events are not dropped as repeats of its dead predecessor's.
    expect(steps(events)).toEqual(['approved', 'executed']);
    expect(results(events, TOOL).at(-1)?.data).toMatchObject({ success: true });
    expect(sent()).toHaveLength(1);
    expect(sys.books.store.contacts.filter((c) => c.Name === name)).toHaveLength(1);
  }, 60_000);

  test('another executor answers for it when the one sending it dies: outcome unknown, checked with a read', async () => {
    const { name, events, sent } = await confirmAndKill('mcp-executor');
    const done = events.at(-1);
    // The call is sent again to the executor left, which never sends it twice: the dead one may have.
    expect(done).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(results(events, TOOL).at(-1)?.data).toMatchObject({
      success: false,
      code: 'TOOL_OUTCOME_UNKNOWN',
    });
    expect(String(done?.data.response)).toMatch(/can't tell whether it was applied/);
    expect(results(events, 'get_all_customers').at(-1)?.data).toMatchObject({ success: true });
    expect(steps(events)).toEqual(['approved', 'executed']);
    // It did run, once (the books finished it after the executor died).
    await expect.poll(() => sys.books.store.contacts.filter((c) => c.Name === name).length).toBe(1);
    expect(sent()).toHaveLength(1);
  }, 60_000);

  test('a write approved by an agent that died before saying so is announced, then finished, by another', async () => {
    // The agent that took the confirmation approved it in PostgreSQL and died before its
    // `confirmation: approved` event: played here by the test, which never acks the routed answer.
    const nc = await connect({ servers: natsUrl() });
    try {
      const js = jetstream(nc);
      const name = `takeover-${randomBytes(5).toString('hex')}`;
      const conversationId = `conv-${name}`;
      const proposal = await ask(sys.gatewayUrl, {
        query: `please create customer ${name}`,
        conversationId,
        ...tenant,
      });
      expect(proposal.events.at(-1)).toMatchObject({
        event: 'complete',
        data: { status: 'awaiting_confirmation' },
      });
      const actionId = String(proposal.events.at(-1)?.data.actionId);
      for (const agent of sys.stack.processes.filter((p) => p.service === 'agent'))
        await sys.stack.kill(agent, 'SIGKILL');
      const answer = ask(sys.gatewayUrl, {
        ...tenant,
        conversationId,
        mcqResponse: { actionId, value: 'confirm' },
      });
      const stream = `${sys.prefix.toUpperCase()}_${STREAMS.work.name}`;
      const msg = await (await js.consumers.get(stream, 'agent')).next({ expires: 10_000 });
      if (!msg) throw new Error('the routed answer never came');
      const { requestId } = msg.json<{ requestId: string }>();
      const approved = await sys.db.query(
        `update pending_actions set status = 'executing', approved_at = now(), decided_at = now(),
           approved_by_request = $1 where action_id = $2 and status = 'pending'`,
        [requestId, actionId],
      );
      expect(approved.rowCount).toBe(1);
      sys.stack.spawn('agent');
      const { events } = await answer;
      expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
      expect(steps(events)).toEqual(['approved', 'executed']);
      expect(results(events, TOOL).at(-1)?.data).toMatchObject({ success: true });
      expect(sys.books.calls().filter((c) => c.tool === TOOL && c.args.Name === name)).toHaveLength(1);
    } finally {
      await nc.close();
    }
  }, 60_000);

  test('a request redelivered after it ended is not run again', async () => {
    // The agent that took it ended it, then died before acknowledging it: played here by the test,
    // which takes the routed query from the agents' consumer, ends the request and never acks.
    const nc = await connect({ servers: natsUrl() });
    try {
      const js = jetstream(nc);
      const jsm = await jetstreamManager(nc);
      const stream = (key: keyof typeof STREAMS) => `${sys.prefix.toUpperCase()}_${STREAMS[key].name}`;
      for (const agent of sys.stack.processes.filter((p) => p.service === 'agent'))
        await sys.stack.kill(agent, 'SIGKILL');
      const query = `what is my cash position ${randomBytes(4).toString('hex')}`;
      const answer = ask(sys.gatewayUrl, { query, ...tenant });
      const msg = await (await js.consumers.get(stream('work'), 'agent')).next({ expires: 10_000 });
      if (!msg) throw new Error('the routed query never came');
      const scope = msg.json<{
        requestId: string;
        conversationId: string;
        entityId: string;
        orgId: string;
      }>();
      const subject = resolveSubject(sys.prefix, catalog.requestEvents.subject, {
        requestId: scope.requestId,
      });
      const end = messageSchema(catalog.requestEvents.schema).parse({
        id: randomUUID(),
        requestId: scope.requestId,
        conversationId: scope.conversationId,
        entityId: scope.entityId,
        orgId: scope.orgId,
        service: 'agent',
        ts: new Date().toISOString(),
        data: { type: 'error', payload: { code: 'INTERNAL', message: 'ended by the first agent' } },
      });
      const { seq } = await js.publish(subject, JSON.stringify(end));
      sys.stack.spawn('agent');
      await expect
        .poll(
          () =>
            sys.logs.some(
              (l) => l.includes('redelivered request had ended already') && l.includes(scope.requestId),
            ),
          { timeout: 20_000 },
        )
        .toBe(true);
      expect((await answer).events.at(-1)).toMatchObject({
        event: 'error',
        data: { message: 'ended by the first agent' },
      });
      // Nothing of a second run: no model call, no event after the end.
      expect(sys.llm?.requestsFor(query)).toEqual([]);
      const last = await jsm.streams.getMessage(stream('events'), { last_by_subj: subject });
      expect(last?.seq).toBe(seq);
    } finally {
      await nc.close();
    }
  }, 60_000);
});
