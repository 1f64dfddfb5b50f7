/**
 * Only the migration job manages munim's streams: on the shipped infra/nats/nats.conf every service
 * user is refused creating, updating, deleting and purging them, the migrate user creates and
 * updates them, and a service finds them made or stops saying to run the migration job.
 */
import { rmSync } from 'node:fs';
import { type ServiceName, ServiceNameSchema } from '@munim/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, migrateStreams } from '../src/connect.ts';
import type { Bus } from '../src/index.ts';
import { inboxPrefix, MIGRATE_USER } from '../src/nats-permissions.ts';
import { DEFAULT_EVENTS_MAX_AGE_MS } from '../src/streams.ts';
import {
  makeTls,
  type NatsServer,
  natsPasswords,
  passwordEnv,
  shippedConfWithTls,
  startNatsServer,
  type TlsFiles,
} from './nats-server.ts';

const SERVICES = ServiceNameSchema.options;
const prefix = 'munim';
const STREAMS = ['MUNIM_WORK', 'MUNIM_EVENTS'] as const;
let tls: TlsFiles;
let clientTls: { caFile: string; certFile: string; keyFile: string };
const passwords = natsPasswords();
let nats: NatsServer;
const buses: Bus[] = [];

const asService = async (service: ServiceName, streams = {}) => {
  const bus = await connectBus({
    servers: nats.url,
    prefix,
    service,
    auth: { user: service, password: passwords[service], tls: clientTls },
    streams,
  });
  buses.push(bus);
  return bus;
};

const migrate = (streams = {}) =>
  migrateStreams({
    servers: nats.url,
    prefix,
    auth: { user: MIGRATE_USER, password: passwords.migrate, tls: clientTls },
    streams,
  });

beforeAll(async () => {
  tls = makeTls();
  clientTls = { caFile: tls.ca, certFile: tls.clientCert, keyFile: tls.clientKey };
  nats = await startNatsServer(shippedConfWithTls(tls), passwordEnv(passwords));
});

afterAll(async () => {
  await Promise.all(buses.map((b) => b.nc.close().catch(() => undefined)));
  await nats?.stop();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

describe('munim streams on the shipped NATS users', () => {
  it('a service stops at once, naming the missing stream and the migration job, and its user may not create one', async () => {
    for (const service of SERVICES) {
      const bus = await asService(service);
      const started = Date.now();
      await expect(bus.ensureStreams()).rejects.toThrow(
        `stream MUNIM_WORK is missing, and the NATS user of ${service} may not create or update streams: run the migration job first (\`npm run migrate\`, or the image with SERVICE=migrate)`,
      );
      // Refused, not retried as if JetStream were electing a leader.
      expect(Date.now() - started).toBeLessThan(5_000);
      for (const name of STREAMS)
        await expect(
          bus.jsm.streams.add({ name, subjects: [`${prefix}.${name.toLowerCase()}.>`] }),
        ).rejects.toThrow(`Permissions Violation for Publish to "$JS.API.STREAM.CREATE.${name}"`);
    }
    const { jsm } = await asService('logger');
    for (const name of STREAMS) await expect(jsm.streams.info(name)).rejects.toThrow(/stream not found/);
  });

  it('the migrate user creates the streams, and then every service starts on them', async () => {
    await migrate();
    const logger = await asService('logger');
    const work = await logger.jsm.streams.info('MUNIM_WORK');
    expect(work.config).toMatchObject({ retention: 'workqueue', subjects: ['munim.work.>'] });
    const events = await logger.jsm.streams.info('MUNIM_EVENTS');
    expect(events.config.max_age).toBe(DEFAULT_EVENTS_MAX_AGE_MS * 1_000_000);
    for (const service of SERVICES)
      await expect((await asService(service)).ensureStreams()).resolves.toBe(undefined);
    expect(nats.output()).not.toMatch(/Publish Violation - User "migrate"/);
  });

  it('no service user may update, delete or purge a stream', async () => {
    for (const service of SERVICES) {
      const { jsm } = await asService(service);
      for (const name of STREAMS) {
        await expect(jsm.streams.update(name, { max_msgs: 10 })).rejects.toThrow(
          `Permissions Violation for Publish to "$JS.API.STREAM.UPDATE.${name}"`,
        );
        await expect(jsm.streams.purge(name)).rejects.toThrow(
          `Permissions Violation for Publish to "$JS.API.STREAM.PURGE.${name}"`,
        );
        await expect(jsm.streams.delete(name)).rejects.toThrow(
          `Permissions Violation for Publish to "$JS.API.STREAM.DELETE.${name}"`,
        );
      }
    }
    const { jsm } = await asService('gateway');
    for (const name of STREAMS)
      await expect(jsm.streams.info(name)).resolves.toMatchObject({ config: { name } });
  });

  it('a service whose settings differ from the streams stops naming the difference; the migrate user updates them', async () => {
    const hour = 3_600_000;
    const router = await asService('router', { maxAgeMs: hour });
    await expect(router.ensureStreams()).rejects.toThrow(
      `stream MUNIM_WORK has max_age 0, not ${hour * 1_000_000}, and the NATS user of router may not create or update streams: run the migration job first`,
    );
    await migrate({ maxAgeMs: hour });
    for (const name of STREAMS)
      expect((await router.jsm.streams.info(name)).config.max_age).toBe(hour * 1_000_000);
    await expect(router.ensureStreams()).resolves.toBe(undefined);
  });

  it('the migrate user may manage nothing else: no delete, no purge, no other stream', async () => {
    const nc = await connect({
      servers: nats.url,
      user: MIGRATE_USER,
      pass: passwords.migrate,
      tls: clientTls,
      inboxPrefix: inboxPrefix(prefix, MIGRATE_USER),
    });
    try {
      const jsm = await jetstreamManager(nc);
      await expect(jsm.streams.delete('MUNIM_WORK')).rejects.toThrow(/Permissions Violation/);
      await expect(jsm.streams.purge('MUNIM_EVENTS')).rejects.toThrow(/Permissions Violation/);
      await expect(jsm.streams.add({ name: 'OTHER', subjects: ['other.>'] })).rejects.toThrow(
        /Permissions Violation/,
      );
      // Nor may it publish into them.
      nc.publish('munim.work.query.submitted', 'forged');
      await nc.flush();
      await expect
        .poll(() => nats.output())
        .toContain('Publish Violation - User "migrate", Subject "munim.work.query.submitted"');
    } finally {
      await nc.close();
    }
  });
});
