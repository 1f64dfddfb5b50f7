import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentEvent,
  type Message,
  type RequestScope,
  type ServiceName,
  ServiceNameSchema,
} from '@munim/contracts';
import { nkeys } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, migrateStreams, type NatsAuth } from '../src/connect.ts';
import type { Bus } from '../src/index.ts';
import { composeNatsConf, renderNatsConf } from '../src/nats-conf.ts';
import { busPermissions, MIGRATE_USER, migratePermissions } from '../src/nats-permissions.ts';
import { createOperator } from './nats-jwt.ts';
import {
  makeTls,
  type NatsServer,
  natsPasswords,
  passwordEnv,
  SHIPPED_NATS_CONF,
  shippedConfWithTls,
  startNatsServer,
} from './nats-server.ts';

const SERVICES = ServiceNameSchema.options;
const prefix = 'munim';
const tls = makeTls();
const clientTls = { caFile: tls.ca, certFile: tls.clientCert, keyFile: tls.clientKey };
const passwords = natsPasswords();
const dir = mkdtempSync(join(tmpdir(), 'munim-auth-'));
const servers: NatsServer[] = [];
const buses: Bus[] = [];
let shipped: NatsServer;

const scope = (): RequestScope => ({
  requestId: crypto.randomUUID(),
  conversationId: 'c1',
  entityId: 'e1',
  orgId: 'o1',
});
const chunk = (text: string): AgentEvent => ({ type: 'response_chunk', payload: { text } });
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};

async function connectAs(service: ServiceName, url: string, auth: NatsAuth): Promise<Bus> {
  const bus = await connectBus({ servers: url, prefix, service, auth });
  buses.push(bus);
  return bus;
}

/** A service on the shipped configuration, with its own user and a client certificate. */
const asService = (service: ServiceName) =>
  connectAs(service, shipped.url, { user: service, password: passwords[service], tls: clientTls });

/** Resolves with the error the server sends when this connection may not subscribe to `subject`. */
function subscribeError(bus: Bus, subject: string): Promise<string> {
  return new Promise((resolve) => {
    bus.nc.subscribe(subject, {
      callback: (err) => {
        if (err) resolve(String(err));
      },
    });
  });
}

beforeAll(async () => {
  shipped = await startNatsServer(shippedConfWithTls(tls), passwordEnv(passwords));
  servers.push(shipped);
  // As deployed: the migration job makes the streams; the services only find them.
  await migrateStreams({
    servers: shipped.url,
    prefix,
    auth: { user: MIGRATE_USER, password: passwords.migrate, tls: clientTls },
  });
});

afterAll(async () => {
  await Promise.all(buses.map((b) => b.nc.close().catch(() => undefined)));
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
  rmSync(tls.dir, { recursive: true, force: true });
});

describe('infra/nats/nats.conf', () => {
  it('is exactly the configuration rendered from the permission table', () => {
    // Regenerate with `node packages/bus/src/render-nats-conf.ts` after changing BUS_ROLES.
    expect(readFileSync(SHIPPED_NATS_CONF, 'utf8')).toBe(composeNatsConf());
  });
});

describe('NATS users per service (the shipped nats.conf, over TLS with client certificates)', () => {
  it('refuses a connection without credentials or with a wrong password, saying why', async () => {
    await expect(connectAs('gateway', shipped.url, { tls: clientTls })).rejects.toThrow(
      /^gateway could not connect to NATS at nats:\/\/127\.0\.0\.1:\d+: .*Authorization Violation/i,
    );
    await expect(
      connectAs('gateway', shipped.url, { user: 'gateway', password: passwords.agent, tls: clientTls }),
    ).rejects.toThrow(/Authorization Violation/i);
  });

  it('connects with the CA; without it, with another CA or without a client certificate it is refused', async () => {
    const bus = await asService('validator');
    expect(bus.nc.isClosed()).toBe(false);
    const user = { user: 'validator', password: passwords.validator };
    const viaTlsUrl = await connectAs('validator', shipped.url.replace('nats:', 'tls:'), {
      ...user,
      tls: clientTls,
    });
    expect(viaTlsUrl.nc.isClosed()).toBe(false);
    // An empty TLS setting (a tls:// URL alone) trusts only the system CAs.
    await expect(
      connectAs('validator', shipped.url.replace('nats:', 'tls:'), { ...user, tls: {} }),
    ).rejects.toThrow(/could not connect to NATS at tls:\/\/[^:]+:\d+: .*(self.signed|unable to verify)/i);
    await expect(
      connectAs('validator', shipped.url, { ...user, tls: { ...clientTls, caFile: tls.otherCa } }),
    ).rejects.toThrow(/could not connect to NATS at .*unable to verify/);
    await expect(
      connectBus({
        servers: shipped.url,
        prefix,
        service: 'validator',
        auth: { ...user, tls: { caFile: tls.ca } },
        connectTimeoutMs: 1500,
      }),
    ).rejects.toThrow(/timeout \(over TLS without a client certificate/);
  });

  it('lets each service do its own job: streams, consumers, requests, broadcasts, health, following', async () => {
    const bus = Object.fromEntries(
      await Promise.all(SERVICES.map(async (s) => [s, await asService(s)] as const)),
    ) as Record<ServiceName, Bus>;
    for (const s of SERVICES) {
      await bus[s].ensureStreams();
      bus[s].serve('healthPing', async () => ({ service: s, instanceId: s, ok: true, checks: {} }), {
        params: { service: s },
      });
    }
    bus['mcp-executor'].serve('toolsList', async () => ({ tools: [] }));
    bus['mcp-executor'].serve('toolExecute', async (m) => ({
      tool: m.data.tool,
      success: true,
      result: { ran: m.data.tool },
      truncated: false,
      durationMs: 1,
    }));
    bus.validator.serve('answerBlocks', async (m) => ({ text: m.data.text, guardrails: [], blocks: [] }));
    bus.validator.serve('toolsContainers', async () => ({ collapsed: false, containers: [], tools: [] }));
    await Promise.all(SERVICES.map((s) => bus[s].flush()));

    // The gateway's readiness: every service answers its own health ping.
    for (const s of SERVICES) {
      await expect(
        bus.gateway.request('healthPing', scope(), {}, { params: { service: s }, timeoutMs: 2000 }),
      ).resolves.toMatchObject({ service: s, ok: true });
    }
    // Whoever needs the registry may ask the executor for it.
    for (const s of ['gateway', 'router', 'agent', 'validator'] as const)
      await expect(bus[s].request('toolsList', scope(), {}, { timeoutMs: 2000 })).resolves.toEqual({
        tools: [],
      });
    const execute = { tool: 'get_invoice', args: {}, callId: 'c1', isWrite: false, argsHash: 'h' };
    await expect(
      bus.agent.request('toolExecute', scope(), execute, { timeoutMs: 2000 }),
    ).resolves.toMatchObject({
      success: true,
      result: { ran: 'get_invoice' },
    });
    await expect(
      bus.agent.request('answerBlocks', scope(), { text: 'hi' }, { timeoutMs: 2000 }),
    ).resolves.toMatchObject({ text: 'hi' });
    await expect(
      bus.agent.request('toolsContainers', scope(), {}, { timeoutMs: 2000 }),
    ).resolves.toMatchObject({ collapsed: false });

    // Notices reach their listeners.
    const heard: string[] = [];
    bus.router.listen('intentsChanged', () => heard.push('router:intents'));
    bus.agent.listen('llmConfigChanged', () => heard.push('agent:llm-configs'));
    bus.validator.listen('toolsChanged', () => heard.push('validator:tools'));
    bus['mcp-executor'].listen('toolPinChanged', () => heard.push('mcp-executor:tool-pins'));
    await Promise.all(SERVICES.map((s) => bus[s].flush()));
    bus.gateway.broadcast('intentsChanged', { reason: 'created', intentIds: ['i1'] });
    bus.gateway.broadcast('llmConfigChanged', { reason: 'default', configId: 1 });
    bus.gateway.broadcast('toolPinChanged', { reason: 'accepted', server: 'books', tool: 'list_invoices' });
    bus['mcp-executor'].broadcast('toolsChanged', {
      reason: 'connected',
      added: [],
      removed: [],
      changed: [],
      total: 0,
    });
    await expect
      .poll(() => heard.sort())
      .toEqual(['agent:llm-configs', 'mcp-executor:tool-pins', 'router:intents', 'validator:tools']);

    // A query through the work stream: gateway → router → agent, each emitting events; the
    // logger consumes them all, the router's outcome observer only the end; the gateway follows the request.
    const stored: string[] = [];
    const observed: string[] = [];
    const consumers = [
      await bus.router.consume(
        'querySubmitted',
        async (m) => {
          await bus.router.emit(m, chunk('router'));
          await bus.router.publish('queryRouted', m, {
            query: m.data.query,
            route: {
              path: 'llm',
              category: 'unified',
              confidence: 0,
              tier: 'cheap',
              intent: null,
              extractedEntities: {},
              strategy: 's',
              toolGroups: [],
              tools: [],
              pipeline: [],
              reasoning: '',
            },
          });
        },
        { durable: 'router' },
      ),
      await bus.agent.consume(
        'queryRouted',
        async (m) => {
          // Long enough for two in-progress notices before the ack: allow_responses alone allows one reply.
          await new Promise((r) => setTimeout(r, 2200));
          await bus.validator.emit(m, chunk('validator'));
          await bus['mcp-executor'].emit(m, chunk('mcp-executor'));
          await bus.agent.emit(m, { type: 'error', payload: { code: 'INTERNAL', message: 'the end' } });
        },
        { durable: 'agent', ackWaitMs: 3000 },
      ),
      await bus.logger.consume(
        'requestEvents',
        async (m: Message<AgentEvent>) => void stored.push(m.service),
        {
          durable: 'logger',
          reportMalformed: false,
        },
      ),
      await bus.router.consume('requestEnded', async (m) => void observed.push(m.data.type), {
        durable: 'router-outcomes',
        reportMalformed: false,
        startAt: 'new',
      }),
    ];
    const s = scope();
    const following = await bus.gateway.follow(s.requestId);
    await bus.gateway.publish('querySubmitted', s, { query: 'show all invoices' });
    await bus.gateway.emit(s, chunk('gateway'));
    const followed: string[] = [];
    for await (const e of following) followed.push(e.message.service);
    await following.stop();
    expect(followed.sort()).toEqual(['agent', 'gateway', 'mcp-executor', 'router', 'validator']);
    await expect.poll(() => stored.length).toBe(5);
    await expect.poll(() => observed).toEqual(['error']);
    // The gateway (replays, feedback) and the agent (did a redelivered request end?) read it.
    for (const reader of ['gateway', 'agent'] as const)
      await expect(bus[reader].lastEvent(s.requestId)).resolves.toMatchObject({
        message: { service: 'agent', data: { type: 'error' } },
      });
    // Every delivery was acked (an ack the server refuses would leave it pending until redelivery).
    const durables = [
      ['router', 'work', 'router'],
      ['agent', 'work', 'agent'],
      ['logger', 'events', 'logger'],
      ['router', 'events', 'router-outcomes'],
    ] as const;
    for (const [s, stream, durable] of durables) {
      await expect
        .poll(
          async () => (await bus[s].jsm.consumers.info(bus[s].streamName(stream), durable)).num_ack_pending,
        )
        .toBe(0);
    }
    for (const c of consumers) await c.stop();
  });

  it('lets only the agent send rpc.tool.execute and only the executor serve it', async () => {
    const executor = await asService('mcp-executor');
    const executed: string[] = [];
    // Its own queue group: every request that reaches the executor's subject is seen here.
    executor.serve(
      'toolExecute',
      async (m) => {
        executed.push(m.service);
        return { tool: m.data.tool, success: true, truncated: false, durationMs: 1 };
      },
      { queue: 'auth-test' },
    );
    await executor.flush();
    const execute = {
      tool: 'create_payment',
      args: { amount: 1 },
      callId: 'c1',
      isWrite: true,
      argsHash: 'h',
    };
    const subject = executor.subject('toolExecute');
    for (const s of SERVICES.filter((x) => x !== 'agent')) {
      const bus = await asService(s);
      await expect(bus.request('toolExecute', scope(), execute, { timeoutMs: 2000 })).rejects.toThrow(
        /Permissions Violation for Publish to "munim\.rpc\.tool\.execute"/,
      );
      bus.nc.publish(subject, JSON.stringify({ forged: true }));
      await bus.nc.flush();
      if (s !== 'mcp-executor')
        await expect(subscribeError(bus, subject)).resolves.toMatch(/Permissions Violation for Subscription/);
    }
    // The agent's call still goes through, and it is the only one the executor ever saw.
    const agent = await asService('agent');
    await expect(agent.request('toolExecute', scope(), execute, { timeoutMs: 2000 })).resolves.toMatchObject({
      success: true,
    });
    expect(executed).toEqual(['agent']);
  });

  it('keeps each service to its own reply inbox and its own consumers', async () => {
    const router = await asService('router');
    await expect(subscribeError(router, '_INBOX.munim.agent.>')).resolves.toMatch(
      /Permissions Violation for Subscription/,
    );
    // Only the gateway and the agent read stored events back.
    await expect(router.lastEvent(randomUUID())).rejects.toThrow(/Permissions Violation/);
    const logger = await asService('logger');
    await logger.ensureStreams();
    await logger.ensureConsumer('requestEvents', { durable: 'logger' });
    const events = logger.streamName('events');
    // The gateway follows requests by listening to what the events stream republishes: it makes
    // no consumer, and may not touch the logger's.
    const gateway = await asService('gateway');
    await expect(gateway.jsm.consumers.delete(events, 'logger')).rejects.toThrow(/Permissions Violation/);
    // A pull is a plain publish: the server refuses it and logs so (the client only times out).
    const pulled = await gateway.js.consumers
      .get(events, 'logger')
      .then((c) => c.next({ expires: 1000 }))
      .catch(() => null);
    expect(pulled).toBeNull();
    // The server's log reaches us through a pipe, possibly after the client has heard its refusal.
    await expect
      .poll(() => shipped.output())
      .toMatch(
        new RegExp(
          `Publish Violation - User "gateway", Subject "\\$JS\\.API\\.CONSUMER\\.(INFO|MSG\\.NEXT)\\.${events}\\.logger"`,
        ),
      );
    await expect(gateway.jsm.consumers.add(events, { filter_subject: 'munim.events.>' })).rejects.toThrow(
      /Permissions Violation/,
    );
    // Only followers hear the live copies of stored events.
    await expect(subscribeError(router, 'munim.live.events.>')).resolves.toMatch(
      /Permissions Violation for Subscription/,
    );
    const agent = await asService('agent');
    await expect(agent.jsm.consumers.delete(logger.streamName('work'), 'router')).rejects.toThrow(
      /Permissions Violation/,
    );
    await expect(logger.jsm.consumers.info(events, 'logger')).resolves.toMatchObject({ name: 'logger' });
    // Messaging follows the events stream and has a durable consumer there too: its own, not the logger's.
    const messaging = await asService('messaging');
    await messaging.ensureConsumer('requestEvents', { durable: 'messaging-approvals' });
    await expect(messaging.jsm.consumers.info(events, 'messaging-approvals')).resolves.toMatchObject({
      name: 'messaging-approvals',
    });
    await expect(messaging.jsm.consumers.delete(events, 'logger')).rejects.toThrow(/Permissions Violation/);
  });
});

describe('other ways to authenticate', () => {
  it('nkey users (NATS_NKEY_SEED_FILE) with the same permissions; a tls:// URL insists on TLS', async () => {
    const keys = Object.fromEntries(SERVICES.map((s) => [s, nkeys.createUser()])) as Record<
      ServiceName,
      ReturnType<typeof nkeys.createUser>
    >;
    const migrator = nkeys.createUser();
    const server = await startNatsServer(({ port, storeDir }) =>
      renderNatsConf({
        prefix,
        port,
        storeDir,
        users: [
          ...SERVICES.map((s) => ({ service: s, nkey: keys[s].getPublicKey() })),
          { service: MIGRATE_USER, nkey: migrator.getPublicKey() },
        ],
      }),
    );
    servers.push(server);
    const seed = (key: typeof migrator) => `${new TextDecoder().decode(key.getSeed())}\n`;
    const seedFile = (s: ServiceName) => file(`${s}.nk`, seed(keys[s]));
    await migrateStreams({
      servers: server.url,
      prefix,
      auth: { nkeySeedFile: file('migrate.nk', seed(migrator)) },
    });
    const agent = await connectAs('agent', server.url, { nkeySeedFile: seedFile('agent') });
    await agent.ensureStreams();
    await expect(agent.emit(scope(), chunk('agent'))).resolves.toMatchObject({ duplicate: false });
    const gateway = await connectAs('gateway', server.url, { nkeySeedFile: seedFile('gateway') });
    await expect(
      gateway.request(
        'toolExecute',
        scope(),
        { tool: 't', args: {}, callId: 'c', isWrite: true, argsHash: 'h' },
        { timeoutMs: 2000 },
      ),
    ).rejects.toThrow(/Permissions Violation for Publish/);
    // The agent's seed does not open the gateway's door: the server checks the key, not the name.
    await expect(connectAs('gateway', server.url, { nkeySeedFile: file('nobody.nk', 'x') })).rejects.toThrow(
      /could not connect to NATS/,
    );
    await expect(
      connectAs('agent', server.url.replace('nats:', 'tls:'), { nkeySeedFile: seedFile('agent') }),
    ).rejects.toThrow(/tls/i);
  });

  it('a token (NATS_TOKEN)', async () => {
    const server = await startNatsServer(
      ({ port, storeDir }) =>
        `port: ${port}\njetstream { store_dir: ${JSON.stringify(storeDir)} }\nauthorization { token: $TEST_TOKEN }\n`,
      { TEST_TOKEN: 'tok3n0123456789abcdef' },
    );
    servers.push(server);
    const bus = await connectAs('logger', server.url, { token: 'tok3n0123456789abcdef' });
    await bus.ensureStreams();
    await expect(connectAs('logger', server.url, { token: 'wrong' })).rejects.toThrow(
      /Authorization Violation/i,
    );
  });

  it('a .creds file (NATS_CREDS_FILE) whose JWT carries the service permissions', async () => {
    const operator = createOperator();
    const server = await startNatsServer(
      ({ port, storeDir }) =>
        `port: ${port}\njetstream { store_dir: ${JSON.stringify(storeDir)} }\n${operator.serverConf}\n`,
    );
    servers.push(server);
    const creds = (s: ServiceName) => file(`${s}.creds`, operator.creds(s, busPermissions(s, prefix)));
    await migrateStreams({
      servers: server.url,
      prefix,
      auth: { credsFile: file('migrate.creds', operator.creds(MIGRATE_USER, migratePermissions(prefix))) },
    });
    const executor = await connectAs('mcp-executor', server.url, { credsFile: creds('mcp-executor') });
    await executor.ensureStreams();
    executor.serve('toolExecute', async (m) => ({
      tool: m.data.tool,
      success: true,
      truncated: false,
      durationMs: 1,
    }));
    await executor.flush();
    const execute = { tool: 't', args: {}, callId: 'c', isWrite: false, argsHash: 'h' };
    const agent = await connectAs('agent', server.url, { credsFile: creds('agent') });
    await expect(agent.request('toolExecute', scope(), execute, { timeoutMs: 2000 })).resolves.toMatchObject({
      success: true,
    });
    const gateway = await connectAs('gateway', server.url, { credsFile: creds('gateway') });
    await expect(gateway.request('toolExecute', scope(), execute, { timeoutMs: 2000 })).rejects.toThrow(
      /Permissions Violation for Publish/,
    );
  });
});
