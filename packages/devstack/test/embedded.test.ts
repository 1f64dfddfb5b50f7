import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@munim/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNats, NO_NATS } from '../src/embedded.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'munim-devstack-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a newcomer without NATS', () => {
  it('is told in one message how to get one: the distribution package, or NATS_URL', async () => {
    const path = process.env.PATH;
    process.env.PATH = dir; // nothing on it: no nats-server
    try {
      const error = await ensureNats(join(dir, 'nats'), await freePort()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(NO_NATS);
      expect(NO_NATS).toMatch(/apt-get install nats-server/);
      expect(NO_NATS).toMatch(/NATS_URL/);
    } finally {
      process.env.PATH = path;
    }
  });

  it('starts a nats-server from PATH with JetStream when nothing answers', async () => {
    const port = await freePort();
    const nats = await ensureNats(join(dir, 'js'), port);
    try {
      expect(nats.url).toBe(`nats://127.0.0.1:${port}`);
      const { connect } = await import('@nats-io/transport-node');
      const nc = await connect({ servers: nats.url });
      const info = await nc.request('$JS.API.INFO', '', { timeout: 2_000 });
      expect(JSON.parse(new TextDecoder().decode(info.data))).toMatchObject({
        type: 'io.nats.jetstream.api.v1.account_info_response',
      });
      await nc.close();
    } finally {
      await nats.stop();
    }
  });
});
