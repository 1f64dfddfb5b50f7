import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceName, ServiceProcess } from '@munim/devstack';
import { type ChatRequest, lastUserText, offeredToolNames } from '@munim/scripted-llm';
import { type GraphFixture, startGraphFixture, test } from '@munim/testkit';
import { createParser } from 'eventsource-parser';
import { afterAll, describe, expect } from 'vitest';
import type { SseEvent } from '../support/sse.ts';
import { freePort, startSystem, type TestSystem } from '../support/stack.ts';
import { scriptWhatsApp, type WaFlow, WhatsAppTraffic, whatsAppFindings } from './chaos-whatsapp.ts';

/**
 * Two instances of every service, a mixed load of reads and confirmed writes, and
 * `kill -9` of one instance of each service in turn while it runs. Every request a client made ends
 * with `complete` or `error` (resuming on the other gateway where its gateway died), no write runs
 * twice, a write reported done is in the books once, a write of unknown outcome is said to be so
 * and checked with a read, and every event a client saw is in PostgreSQL. Every
 * request the system opened ends (those no client saw included), and no answered turn is missing
 * from its conversation. Writes the policy gives to an approver are approved while the kills
 * land: none runs twice, and none approved is lost. People write on WhatsApp to either of two
 * messaging instances (some deliveries to both at once), one of which is killed with messages in
 * flight: every message taken gets exactly one answer, and a customer confirmed by a card's button
 * is created at most once.
 */

const tenant = { entityId: 'ent-chaos', orgId: 'org-chaos' };
/** Flows started at most, and at least (the load goes on until every kill is done). */
const MAX_FLOWS = 120;
const MIN_FLOWS = 40;
/** Flows running at once, each client pausing this long between two (so the load spans every kill). */
const CONCURRENCY = 5;
const THINK_MS = 800;
/** Longest one request (a proposal or a confirmation) may take, resumes included. */
const REQUEST_DEADLINE_MS = 45_000;
/** Every service, in the order their instances are killed. */
const KILL_ORDER: ServiceName[] = [
  'agent',
  'messaging',
  'router',
  'mcp-executor',
  'gateway',
  'validator',
  'logger',
];
/** How long the books take over a new customer: a kill has a write in flight to land on. */
const WRITE_DELAY_MS = 700;
const WRITE_TOOL = 'create_customer';
/** Writes of this tool wait for an approver (the approval policy), who approves them under the kills. */
const APPROVED_TOOL = 'create_vendor';
const MAKER_KEY = `maker-${randomBytes(12).toString('hex')}`;
const APPROVER_KEY = `approver-${randomBytes(12).toString('hex')}`;
const AS_MAKER = { authorization: `Bearer ${MAKER_KEY}` };
const AS_APPROVER = { authorization: `Bearer ${APPROVER_KEY}` };
const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;
const APP_SECRET = randomBytes(20).toString('hex');
const ACCESS_TOKEN = `EAAG${randomBytes(24).toString('hex')}`;
/**
 * Longest a WhatsApp message may take to be answered: a message held by the killed instance waits
 * out its consumer's ack wait (30 s) before the other instance takes it over.
 */
const WHATSAPP_DEADLINE_MS = 80_000;
/** WhatsApp questions posted at once just before the messaging kill (slow to answer: in flight as it lands). */
const WHATSAPP_BURST = 4;

let sys: TestSystem;
let gateways: string[] = [];
let graph: GraphFixture;
let whatsApp: WhatsAppTraffic;
/** Requests under way now. */
let active = 0;

test.beforeAll(async ({ database, nats }) => {
  const secondGateway = await freePort();
  graph = await startGraphFixture({ accessToken: ACCESS_TOKEN });
  const messagingPorts = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'munim-chaos-'));
  const policyFile = join(dir, 'approvals.yaml');
  writeFileSync(
    policyFile,
    `rules:\n  - match: { tool: ${APPROVED_TOOL} }\n    approvers: 1\n    roles: [approver]\n`,
  );
  sys = await startSystem({
    database,
    nats,
    scale: {
      'mcp-executor': 2,
      validator: 2,
      logger: 2,
      router: 2,
      agent: 2,
      gateway: 2,
      messaging: 2,
    },
    // Two gateways (or messaging instances) cannot share a port: each (and its replacement) has its own.
    instanceEnv: (service, index) =>
      service === 'gateway' && index === 2
        ? { PORT: String(secondGateway) }
        : service === 'messaging' && index <= 2
          ? { MESSAGING_PORT: String(messagingPorts[index - 1]) }
          : {},
    env: {
      // A dead instance's work goes to the other one within seconds, not the production minute.
      AGENT_ACK_WAIT_MS: '3000',
      ROUTER_ACK_WAIT_MS: '3000',
      LOGGER_ACK_WAIT_MS: '2000',
      // A write whose executor died is settled (its outcome unknown) within seconds.
      MCP_WRITE_TIMEOUT_MS: '3000',
      MCP_READ_TIMEOUT_MS: '3000',
      IDEMPOTENCY_GRACE_MS: '500',
      EXECUTE_TIMEOUT_MS: '7000',
      VALIDATE_TIMEOUT_MS: '3000',
      // Every read goes through router, agent, validator and executor.
      RESPONSE_CACHE: 'off',
      // A maker who asks and confirms, and an approver (the policy gives vendors to approvers).
      GATEWAY_API_KEYS: [
        `${MAKER_KEY}:${tenant.entityId}:${tenant.orgId}:u-maker:maker`,
        `${APPROVER_KEY}:${tenant.entityId}:${tenant.orgId}:u-approver:approver`,
      ].join(','),
      APPROVAL_POLICY_FILE: policyFile,
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      // WhatsApp, against the Graph fixture.
      WHATSAPP_APP_SECRET: APP_SECRET,
      WHATSAPP_VERIFY_TOKEN: `verify-${randomBytes(8).toString('hex')}`,
      WHATSAPP_ACCESS_TOKEN: ACCESS_TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: graph.phoneNumberId,
      WHATSAPP_GRAPH_URL: graph.url,
      MESSAGING_ANSWER_TIMEOUT_MS: String(REQUEST_DEADLINE_MS),
      ATTACHMENTS_DIR: join(dir, 'attachments'),
    },
  });
  gateways = sys.gatewayUrls;
  const messagingUrls = messagingPorts.map((port) => `http://127.0.0.1:${port}`);
  // The gateways' readiness does not wait for the optional messaging service: wait for its own.
  for (const url of messagingUrls) {
    const deadline = Date.now() + 30_000;
    while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200) {
      if (Date.now() > deadline) throw new Error(`${url} was not ready:\n${sys.logs.slice(-20).join('\n')}`);
      await sleep(200);
    }
  }
  whatsApp = new WhatsAppTraffic({
    graph,
    urls: messagingUrls,
    appSecret: APP_SECRET,
    deadlineMs: WHATSAPP_DEADLINE_MS,
    phones: await makers(Math.ceil((MAX_FLOWS * 2) / MIX.length) + CONCURRENCY + WHATSAPP_BURST),
  });
  sys.books.setFaults({ delayMs: { [WRITE_TOOL]: WRITE_DELAY_MS, [APPROVED_TOOL]: WRITE_DELAY_MS } });
  scriptLlm();
}, 120_000);

afterAll(async () => {
  await sys?.stop();
  await graph?.close();
});

/** `n` makers of the tenant, each with a phone of their own (one per WhatsApp flow). */
async function makers(n: number): Promise<string[]> {
  const phones: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const phone = `9197${randomBytes(4).readUInt32BE(0).toString().padStart(10, '0').slice(-8)}`;
    const res = await fetch(`${gateways[0]}/v1/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({
        orgId: tenant.orgId,
        name: `WhatsApp maker ${i}`,
        phone: `+${phone}`,
        roles: [{ entityId: tenant.entityId, role: 'maker' }],
      }),
    });
    if (res.status !== 201) throw new Error(`maker ${i}: HTTP ${res.status} ${await res.text()}`);
    phones.push(phone);
  }
  return phones;
}

const hasToolMessage = (req: ChatRequest) => req.messages.some((m) => m.role === 'tool');

/** The model as a function of the request, so a request redone by another instance gets the same answers. */
function scriptLlm() {
  sys.llm?.script({
    match: 'please create customer chaos-',
    repeat: true,
    turns: [
      (req) => {
        if (hasToolMessage(req)) return { content: 'Done.' };
        const name = /customer (chaos-[a-z0-9]+)/.exec(lastUserText(req))?.[1];
        return { toolCalls: [{ name: WRITE_TOOL, arguments: { Name: name } }] };
      },
    ],
  });
  sys.llm?.script({
    match: 'please create vendor chaos-',
    repeat: true,
    turns: [
      (req) => {
        if (hasToolMessage(req)) return { content: 'Done.' };
        const name = /vendor (chaos-[a-z0-9]+)/.exec(lastUserText(req))?.[1];
        return { toolCalls: [{ name: APPROVED_TOOL, arguments: { Name: name } }] };
      },
    ],
  });
  sys.llm?.script({
    match: 'list my bills please',
    repeat: true,
    turns: [
      (req) =>
        hasToolMessage(req) || !offeredToolNames(req).includes('get_bills')
          ? { content: 'Here are your bills.' }
          : { toolCalls: [{ name: 'get_bills', arguments: {} }] },
    ],
  });
  sys.llm?.script({
    match: 'show all invoices',
    repeat: true,
    turns: [{ content: 'Here are all your invoices.' }],
  });
  scriptWhatsApp(sys.llm, WRITE_TOOL);
}

/** What a client saw of one request, across the gateways it was streamed from. */
interface Seen {
  label: string;
  requestId: string | undefined;
  events: SseEvent[];
  /** Its `complete` or `error`, as the stream carried it. */
  end: SseEvent | undefined;
  /** Times the client picked up the request's events again on another gateway. */
  resumes: number;
  /** POSTs refused (a dead gateway): nothing was sent, the client tried the other one. */
  refused: number;
  /** POSTs that broke after they were sent, before the gateway said which request they made. */
  lostPosts: number;
  problems: string[];
}

const TERMINAL = new Set(['complete', 'error']);
const other = (g: number) => (g + 1) % 2;

/** Reads an SSE body until it ends or breaks; every event goes to `onEvent`. */
async function readEvents(res: Response, onEvent: (e: SseEvent) => void): Promise<'ended' | 'broken'> {
  const parser = createParser({
    onEvent: (e) => onEvent({ id: e.id, event: e.event ?? 'message', data: JSON.parse(e.data) }),
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
    return 'ended';
  } catch {
    return 'broken';
  }
}

/**
 * Makes one request as a client that knows both gateways: POST to one; if that gateway dies before
 * the end, follow the request on the other from the last event seen (`Last-Event-ID`).
 */
async function request(label: string, body: Record<string, unknown>, first: number): Promise<Seen> {
  const seen: Seen = {
    label,
    requestId: undefined,
    events: [],
    end: undefined,
    resumes: 0,
    refused: 0,
    lostPosts: 0,
    problems: [],
  };
  const deadline = Date.now() + REQUEST_DEADLINE_MS;
  let g = first;
  active += 1;
  for (let attempt = 0; !seen.end && Date.now() < deadline; attempt += 1) {
    if (attempt > 0) await sleep(250);
    const url = gateways[g] ?? '';
    const lastId = seen.events.at(-1)?.id;
    let res: Response;
    try {
      const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
      res =
        seen.requestId === undefined
          ? await fetch(`${url}/v1/query`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...AS_MAKER },
              body: JSON.stringify(body),
              signal,
            })
          : await fetch(`${url}/v1/requests/${seen.requestId}/events`, {
              headers: { ...AS_MAKER, ...(lastId ? { 'last-event-id': lastId } : {}) },
              signal,
            });
    } catch (error) {
      // Refused or cut before an answer (a dead gateway): nothing was streamed, try the other one.
      const refused = (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
      if (refused) seen.refused += 1;
      else if (seen.requestId === undefined) seen.lostPosts += 1;
      g = other(g);
      continue;
    }
    if (seen.requestId !== undefined) seen.resumes += 1;
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
      seen.problems.push(`${res.url}: HTTP ${res.status} ${await res.text().catch(() => '')}`);
      break;
    }
    const outcome = await readEvents(res, (e) => {
      if (seen.end) return;
      if (e.id === undefined) {
        // The gateway ended the stream itself (a timeout, a broken follow): not the request's end.
        seen.problems.push(`gateway-side ${e.event} ${JSON.stringify(e.data)}`);
        return;
      }
      seen.events.push(e);
      if (e.event === 'connected') seen.requestId = String(e.data.requestId);
      if (TERMINAL.has(e.event)) seen.end = e;
    });
    if (seen.problems.length > 0) break;
    if (!seen.end) {
      if (seen.requestId === undefined) seen.lostPosts += 1;
      else if (outcome === 'ended' && res.url.includes('/events') && seen.events.at(-1)?.id === lastId) {
        // A replay that ended with nothing new although the request has not ended for us.
        seen.problems.push(`replay after ${lastId} ended without the request's end`);
        break;
      }
      g = other(g);
    }
  }
  active -= 1;
  if (!seen.end && seen.problems.length === 0) {
    seen.problems.push(
      `no complete or error within ${REQUEST_DEADLINE_MS / 1000} s (last event: ${seen.events.at(-1)?.event ?? 'none'})`,
    );
  }
  const ids = seen.events.map((e) => Number(e.id));
  if (ids.some((id, i) => i > 0 && id <= (ids[i - 1] ?? 0))) {
    seen.problems.push(`event ids not increasing across resumes: ${ids.join(',')}`);
  }
  return seen;
}

type Kind = 'fast read' | 'llm read' | 'write' | 'approved write' | WaFlow['kind'];
interface Flow {
  kind: Kind;
  conversationId: string;
  /** The write's unique customer (or vendor) name. */
  name?: string | undefined;
  requests: Seen[];
  /** An approved write's approval, and what its approver's POSTs were answered. */
  approval?: { approvalId: string; answers: string[] };
  /** A WhatsApp flow's messages and what its phone was sent. */
  whatsApp?: WaFlow;
}

const MIX: Kind[] = [
  'write',
  'fast read',
  'whatsapp question',
  'approved write',
  'llm read',
  'whatsapp write',
];

/**
 * The approver approves, as a client that knows both gateways: a POST cut by its gateway's death
 * is sent again to the other one, which answers 409 if the first one's decision went through.
 */
async function approve(approvalId: string, first: number): Promise<string[]> {
  const answers: string[] = [];
  const deadline = Date.now() + REQUEST_DEADLINE_MS;
  for (let g = first; Date.now() < deadline; g = other(g)) {
    active += 1;
    try {
      const res = await fetch(`${gateways[g]}/v1/approvals/${approvalId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AS_APPROVER },
        body: JSON.stringify({ decision: 'approve' }),
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      });
      const body = (await res.json().catch(() => ({}))) as { status?: string; error?: { code?: string } };
      answers.push(`${res.status} ${body.status ?? body.error?.code ?? ''}`.trim());
      // A gateway that stopped while waiting for the outcome: the decision may have been taken.
      if (res.status !== 503 && res.status !== 502) return answers;
    } catch {
      answers.push('no answer');
    } finally {
      active -= 1;
    }
    await sleep(250);
  }
  return answers;
}

async function runFlow(index: number): Promise<Flow> {
  const kind = MIX[index % MIX.length] as Kind;
  const tag = randomBytes(5).toString('hex');
  const conversationId = `chaos-${tag}`;
  const first = index % 2;
  if (kind === 'whatsapp question' || kind === 'whatsapp write') return whatsAppFlow(kind);
  if (kind === 'fast read') {
    const seen = await request(
      `#${index} fast read`,
      { query: 'show all invoices', conversationId, ...tenant },
      first,
    );
    return { kind, conversationId, requests: [seen] };
  }
  if (kind === 'llm read') {
    const seen = await request(
      `#${index} llm read`,
      { query: `list my bills please ${tag}`, conversationId, ...tenant },
      first,
    );
    return { kind, conversationId, requests: [seen] };
  }
  const name = `chaos-${tag}`;
  const what = kind === 'approved write' ? 'vendor' : 'customer';
  const proposal = await request(
    `#${index} proposal of ${name}`,
    { query: `please create ${what} ${name}`, conversationId, ...tenant },
    first,
  );
  const flow: Flow = { kind, conversationId, name, requests: [proposal] };
  const actionId = proposal.end?.event === 'complete' ? proposal.end.data.actionId : undefined;
  if (typeof actionId !== 'string') return flow;
  const confirmation = await request(
    `#${index} confirmation of ${name}`,
    { ...tenant, conversationId, mcqResponse: { actionId, value: 'confirm' } },
    other(first),
  );
  flow.requests.push(confirmation);
  if (kind === 'approved write' && confirmation.end?.data.status === 'awaiting_approval')
    flow.approval = { approvalId: actionId, answers: await approve(actionId, first) };
  return flow;
}

/** A phone's flow on WhatsApp (its conversation is the phone's, made by the messaging service). */
async function whatsAppFlow(kind: WaFlow['kind']): Promise<Flow> {
  const flow = await whatsApp.run(kind);
  return { kind, conversationId: '', name: flow.name, requests: [], whatsApp: flow };
}

/** The tool results of the write in a request's events. */
const writeResults = (seen: Seen) =>
  seen.events.filter((e) => e.event === 'tool_result' && e.data.tool === WRITE_TOOL);

describe('chaos: kill -9 one instance of each service under load', () => {
  test('ends every request, runs no write twice, and stores every event', async () => {
    const started = Date.now();
    const flows: Flow[] = [];
    const kills: { name: string; underWay: number; whatsAppUnderWay: number }[] = [];
    let killsDone = false;
    let next = 0;
    let burst: Promise<Flow[]> = Promise.resolve([]);

    const worker = async () => {
      while (next < MAX_FLOWS && (!killsDone || next < MIN_FLOWS)) {
        const index = next++;
        flows.push(await runFlow(index));
        await sleep(THINK_MS);
      }
    };

    /** A write is at the books now (they take WRITE_DELAY_MS over it), or the wait ran out. */
    const writeInFlight = async (maxMs: number) => {
      const until = Date.now() + maxMs;
      while (Date.now() < until) {
        const recent = sys.books
          .calls()
          .some((c) => c.tool === WRITE_TOOL && Date.now() - Date.parse(c.at) < WRITE_DELAY_MS / 2);
        if (recent) return;
        await sleep(25);
      }
    };

    const chaos = async () => {
      await sleep(3_000);
      for (const service of KILL_ORDER) {
        const running = sys.stack.processes.filter(
          (p) => p.service === service && p.child.exitCode === null && p.child.signalCode === null,
        );
        if (service === 'agent' || service === 'mcp-executor') await writeInFlight(5_000);
        if (service === 'messaging') {
          // Questions at once, which the two instances' pulls share: the victim holds some as it dies.
          burst = Promise.all(
            Array.from({ length: WHATSAPP_BURST }, () => whatsAppFlow('whatsapp question')),
          );
          for (let waited = 0; whatsApp.inFlight < WHATSAPP_BURST && waited < 5_000; waited += 25)
            await sleep(25);
          await sleep(500);
        }
        // Not in a lull where every client is between two flows.
        for (let waited = 0; active + whatsApp.inFlight === 0 && waited < 5_000; waited += 25)
          await sleep(25);
        const victim = running[Math.floor(Math.random() * running.length)] as ServiceProcess;
        const underWay = active + whatsApp.inFlight;
        const whatsAppUnderWay = whatsApp.inFlight;
        await sys.stack.kill(victim, 'SIGKILL');
        kills.push({ name: victim.name, underWay, whatsAppUnderWay });
        // A beat with one instance left, then a replacement like it (a gateway on the same port).
        await sleep(2_500);
        sys.stack.spawn(service, victim.ownEnv);
        await sleep(1_500);
      }
      killsDone = true;
      flows.push(...(await burst));
    };

    await Promise.all([chaos(), ...Array.from({ length: CONCURRENCY }, worker)]);
    const loadMs = Date.now() - started;

    const requests = flows.flatMap((f) => f.requests);
    const problems = requests.flatMap((r) => r.problems.map((p) => `${r.label} (${r.requestId}): ${p}`));
    const diagnose = () =>
      `${problems.join('\n')}\n--- service warnings ---\n${sys.logs
        .filter((l) => !/redelivered/.test(l))
        .slice(-40)
        .join('\n')}`;

    // Every request ended with its complete or error, as the client saw it.
    expect(problems, diagnose()).toEqual([]);
    expect(kills).toHaveLength(KILL_ORDER.length);
    // Each kill landed under load.
    for (const kill of kills)
      expect(kill.underWay, `requests under way at ${kill.name}'s kill`).toBeGreaterThan(0);

    // No write ran twice. One that ran was finished by whichever instances were left: its
    // confirmation ended with `complete` giving its result, or saying its outcome is unknown after a
    // read of the records it concerns. One reported done is in the books once.
    const calls = sys.books.calls().filter((c) => c.tool === WRITE_TOOL);
    let succeeded = 0;
    let unknown = 0;
    let failedConfirmations = 0;
    for (const flow of flows.filter((f) => f.kind === 'write')) {
      const sent = calls.filter((c) => c.args.Name === flow.name);
      const stored = sys.books.store.contacts.filter((c) => c.Name === flow.name);
      expect(sent.length, `${flow.name} sent ${sent.length} times`).toBeLessThanOrEqual(1);
      expect(stored.length, `${flow.name} stored ${stored.length} times`).toBeLessThanOrEqual(1);
      const confirmation = flow.requests[1];
      if (!confirmation) {
        expect(sent, `${flow.name} ran without a confirmation`).toHaveLength(0);
        continue;
      }
      if (confirmation.end?.event === 'error') failedConfirmations += 1;
      const results = writeResults(confirmation);
      const done = results.some((e) => e.data.success === true);
      const unsure = results.findIndex((e) => e.data.code === 'TOOL_OUTCOME_UNKNOWN');
      if (sent.length === 1 && confirmation.lostPosts === 0) {
        expect(confirmation.end?.event, `${flow.name} ran: its confirmation's end`).toBe('complete');
        const seen = confirmation.events
          .map((e) => [e.event, e.data.tool, e.data.code, e.data.step].filter(Boolean).join(':'))
          .join(' ');
        expect(
          done || unsure >= 0,
          `${flow.name} ran: its result or an unknown outcome; it saw ${seen}\n${sys.logs
            .filter((l) => l.includes(String(confirmation.requestId ?? flow.name)))
            .slice(-20)
            .join('\n')}`,
        ).toBe(true);
      }
      if (done) {
        succeeded += 1;
        expect(sent, `${flow.name} reported done`).toHaveLength(1);
        expect(stored, `${flow.name} reported done`).toHaveLength(1);
      }
      if (confirmation.end?.event === 'complete' && (done || unsure >= 0)) {
        // Every step of the confirmation reached the client, once, a redelivered one's included.
        const steps = confirmation.events.filter((e) => e.event === 'confirmation').map((e) => e.data.step);
        expect(steps, `${flow.name}: confirmation steps`).toEqual(['approved', 'executed']);
      }
      if (unsure >= 0 && !done) {
        unknown += 1;
        if (confirmation.end?.event === 'complete') {
          expect(String(confirmation.end.data.response), `${flow.name}: unknown outcome`).toMatch(
            /can't tell whether it was applied/,
          );
          const at = confirmation.events.indexOf(results[unsure] as SseEvent);
          const read = confirmation.events
            .slice(at + 1)
            .find((e) => e.event === 'tool_result' && e.data.tool !== WRITE_TOOL && e.data.success === true);
          expect(read, `${flow.name}: unknown outcome checked with a read`).toBeDefined();
        }
      }
      if (sent.length === 1 && confirmation.lostPosts > 0 && confirmation.end?.event !== 'complete') {
        // Its first POST went through unseen (the gateway died before saying so): that request
        // finished the write, and the client's second one was refused as already answered.
        const finished = async () =>
          (
            await sys.db.query(
              `select 1 from request_events where conversation_id = $1 and type = 'complete'
                 and payload->'mcpToolResults' @> $2::jsonb`,
              [flow.conversationId, JSON.stringify([{ tool: WRITE_TOOL }])],
            )
          ).rowCount;
        await expect
          .poll(finished, {
            timeout: 30_000,
            interval: 500,
            message: `${flow.name}: the unseen confirmation`,
          })
          .toBeGreaterThan(0);
      }
    }
    // No approved write ran twice, and none approved was lost: a write whose approval went through
    // (answered, or refused as decided after a POST its gateway's death cut) ends executed,
    // whichever instances were left, and is in the books at most once.
    const vendorCalls = sys.books.calls().filter((c) => c.tool === APPROVED_TOOL);
    const approvedFlows = flows.filter((f) => f.kind === 'approved write');
    let approvedDone = 0;
    for (const flow of approvedFlows) {
      const sent = vendorCalls.filter((c) => c.args.Name === flow.name);
      const stored = sys.books.store.contacts.filter((c) => c.Name === flow.name);
      expect(sent.length, `${flow.name} sent ${sent.length} times`).toBeLessThanOrEqual(1);
      expect(stored.length, `${flow.name} stored ${stored.length} times`).toBeLessThanOrEqual(1);
      if (!flow.approval) {
        expect(sent, `${flow.name} ran without an approval`).toHaveLength(0);
        continue;
      }
      const { approvalId, answers } = flow.approval;
      const row = async () =>
        (
          await sys.db.query<{ status: string; result: { success?: boolean } | null }>(
            'select status, result from pending_actions where action_id = $1',
            [approvalId],
          )
        ).rows[0];
      if (!answers.some((a) => a.startsWith('200') || a.startsWith('409'))) continue;
      await expect
        .poll(async () => (await row())?.status, {
          timeout: 30_000,
          interval: 500,
          message: `${flow.name}: approved (${answers.join(', ')}), then`,
        })
        .toBe('executed');
      if ((await row())?.result?.success === true) {
        approvedDone += 1;
        expect(sent, `${flow.name} approved and done`).toHaveLength(1);
        expect(stored, `${flow.name} approved and done`).toHaveLength(1);
      }
    }
    // Every WhatsApp message an instance took was answered, once: a duplicate delivery and one the
    // killed instance held included (the other takes it over after its ack wait). Counted once every
    // such message is recorded answered, so an answer sent again would be in the count.
    const whatsAppFlows = flows.flatMap((f) => (f.whatsApp ? [f.whatsApp] : []));
    const taken = [
      ...new Set(whatsAppFlows.flatMap((f) => f.messages.filter((m) => m.accepted).map((m) => m.id))),
    ];
    const unanswered = async () => {
      const rows = await sys.db.query<{ message_id: string }>(
        `select message_id from messaging_deliveries
           where message_id = any($1::text[]) and answered_at is not null`,
        [taken],
      );
      const answered = new Set(rows.rows.map((r) => r.message_id));
      return taken.filter((id) => !answered.has(id));
    };
    await expect.poll(unanswered, { timeout: 45_000, interval: 500 }).toEqual([]);
    const whatsAppSeen = whatsAppFindings(whatsAppFlows, graph, sys.books, WRITE_TOOL);
    expect(
      whatsAppSeen.problems,
      `--- messaging ---\n${sys.logs
        .filter((l) => l.startsWith('[messaging'))
        .slice(-40)
        .join('\n')}`,
    ).toEqual([]);
    const messagingKill = kills.find((k) => k.name.startsWith('messaging'));
    expect(
      messagingKill?.whatsAppUnderWay,
      'WhatsApp messages in flight at the messaging kill',
    ).toBeGreaterThan(0);
    const takenOver = sys.logs.filter((l) => /messaging\.inbound.*message redelivered/.test(l)).length;
    expect(takenOver, 'WhatsApp messages of the killed instance taken over by the other').toBeGreaterThan(0);

    // Not vacuous: writes were confirmed and done, approved and done, reads answered, under the kills.
    expect(whatsAppSeen.answered).toBeGreaterThan(0);
    expect(whatsAppSeen.created).toBeGreaterThan(0);
    expect(whatsAppSeen.duplicates).toBeGreaterThan(0);
    expect(succeeded).toBeGreaterThan(0);
    expect(approvedDone).toBeGreaterThan(0);
    for (const kind of ['fast read', 'llm read'] as const) {
      expect(
        flows.filter((f) => f.kind === kind && f.requests[0]?.end?.data.status === 'answered').length,
      ).toBeGreaterThan(0);
    }

    // Every event a client saw is in PostgreSQL (once the loggers caught up).
    const seen = requests.flatMap((r) => r.events.map((e) => `${r.requestId}:${e.id}`));
    const ids = [...new Set(requests.map((r) => r.requestId))];
    const missing = async () => {
      const rows = await sys.db.query<{ key: string }>(
        `select request_id || ':' || seq as key from request_events where request_id = any($1::text[])`,
        [ids],
      );
      const stored = new Set(rows.rows.map((r) => r.key));
      return seen.filter((key) => !stored.has(key));
    };
    const missingFrom = Date.now();
    await expect.poll(missing, { timeout: 30_000, interval: 500 }).toEqual([]);
    const missingMs = Date.now() - missingFrom;

    // Every request the system opened ended, the ones no client saw included (a POST cut by its
    // gateway's death): a request with events and no `complete` or `error` would never end.
    const unended = async () =>
      (
        await sys.db.query<{ request_id: string; types: string }>(
          `select request_id, string_agg(type, ',' order by seq) as types from request_events
             where entity_id = $1 and org_id = $2 group by request_id
             having bool_and(type not in ('complete', 'error'))`,
          [tenant.entityId, tenant.orgId],
        )
      ).rows.map((r) => `${r.request_id}: ${r.types}`);
    const unendedFrom = Date.now();
    await expect.poll(unended, { timeout: 30_000, interval: 1_000 }).toEqual([]);
    const unendedMs = Date.now() - unendedFrom;

    // No turn was lost: every request the agent answered has its question and answer in its
    // conversation, once, however many instances worked on it.
    const lostTurns = async () => {
      const answered = await sys.db.query<{ request_id: string; conversation_id: string }>(
        `select distinct request_id, conversation_id from request_events
           where entity_id = $1 and org_id = $2 and type = 'complete' and service = 'agent'`,
        [tenant.entityId, tenant.orgId],
      );
      const stored = await sys.db.query<{ id: string; request_id: string; n: number }>(
        `select c.id, m->>'requestId' as request_id, count(*)::int as n
           from unified_conversations c, jsonb_array_elements(c.messages) m
           where c.entity_id = $1 and c.org_id = $2 group by c.id, m->>'requestId'`,
        [tenant.entityId, tenant.orgId],
      );
      const turns = new Map(stored.rows.map((r) => [`${r.id}:${r.request_id}`, r.n]));
      // Not vacuous: the agent answered most of the flows' requests.
      expect(answered.rows.length).toBeGreaterThan(flows.length / 2);
      return answered.rows
        .filter((r) => turns.get(`${r.conversation_id}:${r.request_id}`) !== 2)
        .map(
          (r) =>
            `${r.request_id} in ${r.conversation_id}: ${turns.get(`${r.conversation_id}:${r.request_id}`) ?? 0} messages`,
        );
    };
    expect(await lostTurns(), sys.logs.filter((l) => /could not save turn/.test(l)).join('\n')).toEqual([]);
    // The chats were numbered 1..n: none lost a race for its number.
    const numbers = await sys.db.query<{ chat_number: number }>(
      'select chat_number from unified_conversations where entity_id = $1 and org_id = $2 order by chat_number',
      [tenant.entityId, tenant.orgId],
    );
    expect(numbers.rows.map((r) => r.chat_number)).toEqual(numbers.rows.map((_, i) => i + 1));

    const lines = (pattern: RegExp) => sys.logs.filter((l) => pattern.test(l)).length;
    const takeovers =
      `${lines(/query\.submitted.*message redelivered/)} queries redelivered to a router, ` +
      `${lines(/query\.routed.*message redelivered/)} to an agent ` +
      `(${lines(/finishing a confirmed write/)} confirmed writes finished by another agent), ` +
      `${lines(/unanswered; sending it again/)} validations or tool calls sent again, ` +
      `${lines(/redelivered events stored/)} logger batches with redelivered events, ` +
      `${takenOver} WhatsApp messages taken over by another messaging instance`;
    const errors = requests.filter((r) => r.end?.event === 'error').map((r) => String(r.end?.data.code));
    const count = (kind: Kind) => flows.filter((f) => f.kind === kind).length;
    console.log(
      `chaos: ${flows.length} flows (${count('fast read')} fast reads, ${count('llm read')} llm reads, ` +
        `${count('write')} confirmed writes: ${succeeded} done, ${unknown} outcome unknown, ${failedConfirmations} confirmation errors; ` +
        `${count('approved write')} writes for an approver: ${approvedFlows.filter((f) => f.approval).length} approved, ${approvedDone} done, ` +
        `${count('whatsapp question')} WhatsApp questions: ${whatsAppSeen.answered} answered, ` +
        `${count('whatsapp write')} WhatsApp writes: ${whatsAppSeen.created} created, ` +
        `${taken.length} WhatsApp messages taken, ${whatsAppSeen.duplicates} of them delivered twice, ` +
        `the slowest answered in ${Math.round(whatsAppSeen.slowestMs / 1000)} s; ` +
        `told otherwise: [${whatsAppSeen.otherwise.join(' | ')}]), ` +
        `${requests.length} requests, ${kills.length} kills (${kills.map((k) => `${k.name} with ${k.underWay} requests under way (${k.whatsAppUnderWay} on WhatsApp)`).join(', ')}), ${takeovers}, ` +
        `${requests.reduce((n, r) => n + r.resumes, 0)} resumes, ${requests.reduce((n, r) => n + r.refused, 0)} refused and ` +
        `${requests.reduce((n, r) => n + r.lostPosts, 0)} lost POSTs, ` +
        `events stored in ${Math.round(missingMs / 1000)} s, every opened request ended ${Math.round(unendedMs / 1000)} s after, ` +
        `errors [${errors.join(', ')}], load ${Math.round(loadMs / 1000)} s, total ${Math.round((Date.now() - started) / 1000)} s`,
    );
  }, 240_000);
});
