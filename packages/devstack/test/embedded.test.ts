import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@munim/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNats, NO_NATS, startPostgres } from '../src/embedded.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'munim-devstack-'));
  // As root the embedded PostgreSQL runs as the postgres user, who must be able to enter it.
  await chmod(dir, 0o755);
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

describe('an embedded PostgreSQL that cannot start', () => {
  it('says why in its own words when its data directory is unusable', async () => {
    // A cluster of another PostgreSQL version, as an old .data/postgres would be.
    const dataDir = join(dir, 'old-cluster');
    const cluster = join(dataDir, 'cluster');
    await mkdir(dataDir);
    await mkdir(cluster, { mode: 0o700 });
    await writeFile(join(cluster, 'PG_VERSION'), '9\n');
    await writeFile(join(cluster, 'postgresql.conf'), '');
    await writeFile(join(dataDir, 'password'), 'secret');
    if (process.getuid?.() === 0) {
      const [uid, gid] = ['-u', '-g'].map((flag) =>
        Number(execFileSync('id', [flag, 'postgres']).toString()),
      );
      for (const path of [cluster, join(cluster, 'PG_VERSION'), join(cluster, 'postgresql.conf')])
        await chown(path, uid as number, gid as number);
    }
    const error = await startPostgres(dataDir, await freePort()).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^the embedded PostgreSQL did not start: FATAL: database files are incompatible with server DETAIL: The data directory was initialized by PostgreSQL version 9, which is not compatible with this version 17\.\d+\.$/,
    );
  });

  it('says why when it cannot make its socket lock file in /tmp, instead of the last "ok" of initdb', async () => {
    // A fresh cluster (initdb's output, ending in "ok"s, is what it printed last), and a directory
    // where the server makes the lock file of its Unix socket: it stops at once, saying so.
    const port = await freePort();
    const lockFile = `/tmp/.s.PGSQL.${port}.lock`;
    await mkdir(lockFile);
    try {
      const error = await startPostgres(join(dir, 'fresh'), port).catch((e: unknown) => e);
      expect((error as Error).message).toBe(
        `the embedded PostgreSQL did not start: FATAL: could not read lock file "${lockFile}": Is a directory`,
      );
    } finally {
      await rm(lockFile, { recursive: true, force: true });
    }
  }, 60_000);
});
