// Who asked is recorded with every request: the logger takes the person from the events'
// envelopes into the request's query_routing_logs row (user, roles, how they asked), keeps it when
// later events come without it, and leaves
// it unknown (null roles) for a request whose events name nobody.
import type { Bus } from '@munim/bus';
import { type Actor, PERSON_ROLES, type RequestScope, type ServiceName } from '@munim/contracts';
import type { Database } from '@munim/db';
import { createLogger } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { buildLogger, type LoggerApp } from '../src/app.ts';
import { publishFlow, scopeOf, writeFlow } from './support/flows.ts';

let nats: TestNats;
const buses = new Map<ServiceName, Bus>();
const bus = (service: ServiceName) => buses.get(service)!;
let db: Kysely<Database>;
let app: LoggerApp | undefined;

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  for (const service of ['gateway', 'router', 'agent', 'validator', 'mcp-executor'] as const)
    buses.set(service, await nats.bus(service));
  app = await buildLogger({
    bus: await nats.bus('logger'),
    log: createLogger('logger', 'silent'),
    db,
    config: { concurrency: 1, batchSize: 16 },
  });
  await app.start();
});

afterAll(async () => {
  await app?.stop();
});

const actorRow = (requestId: string) =>
  db
    .selectFrom('query_routing_logs')
    .select(['actor_user_id', 'actor_roles', 'actor_via', 'status'])
    .where('request_id', '=', requestId)
    .executeTakeFirst();

describe('query_routing_logs records who asked', () => {
  test('the user, roles and channel of every request, from its envelopes', async () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const asked: { scope: RequestScope; actor: Actor }[] = [];
    for (let i = 0; i < 12; i++) {
      const roles = PERSON_ROLES.filter(() => random() < 0.4);
      const actor: Actor = {
        userId: random() < 0.25 ? null : `user-${i}`,
        roles: roles.length > 0 ? roles : ['viewer'],
        via: (['api', 'mcp', 'messaging'] as const)[i % 3] as Actor['via'],
      };
      const scope = { ...scopeOf(), actor };
      asked.push({ scope, actor });
      await publishFlow(bus, scope, writeFlow(scope));
    }
    for (const { scope, actor } of asked) {
      await expect
        .poll(async () => (await actorRow(scope.requestId))?.status, { timeout: 10_000 })
        .toBe('answered');
      expect(await actorRow(scope.requestId)).toMatchObject({
        actor_user_id: actor.userId,
        actor_roles: actor.roles,
        actor_via: actor.via,
      });
    }
  });

  test('nobody, for a request whose events name no one (sent before people were carried)', async () => {
    const scope = scopeOf();
    await publishFlow(bus, scope, writeFlow(scope));
    await expect
      .poll(async () => (await actorRow(scope.requestId))?.status, { timeout: 10_000 })
      .toBe('answered');
    expect(await actorRow(scope.requestId)).toMatchObject({
      actor_user_id: null,
      actor_roles: null,
      actor_via: null,
    });
  });

  test('kept when the later events of the request come in envelopes without one', async () => {
    const actor: Actor = { userId: 'user-late', roles: ['maker'], via: 'api' };
    const scope = { ...scopeOf(), actor };
    const flow = writeFlow(scope);
    await publishFlow(bus, scope, flow.slice(0, 3));
    await expect
      .poll(async () => (await actorRow(scope.requestId))?.actor_user_id, { timeout: 10_000 })
      .toBe('user-late');
    // The rest from an envelope without the actor: the row keeps the one it had.
    const { actor: _, ...bare } = scope;
    await publishFlow(bus, bare, flow.slice(3));
    await expect
      .poll(async () => (await actorRow(scope.requestId))?.status, { timeout: 10_000 })
      .toBe('answered');
    expect(await actorRow(scope.requestId)).toMatchObject({
      actor_user_id: 'user-late',
      actor_roles: ['maker'],
    });
  });
});
