/**
 * `npm test` on a fresh machine: the test run's global setup, where nothing listens (a network
 * namespace of its own, loopback only), starts a PostgreSQL and a NATS of its own that answer,
 * and its teardown leaves no process, port or directory behind. A machine without a system tool
 * the tests drive is told in one line what to install, and no test runs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const SETUP = pathToFileURL(join(ROOT, 'test/support/global-setup.ts')).href;
const DEVSTACK = pathToFileURL(join(ROOT, 'packages/devstack/src/embedded.ts')).href;

/** The environment of a machine with nothing configured. */
function unconfigured(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NATS_URL: _n, TEST_DATABASE_ADMIN_URL: _t, MUNIM_TEST_SERVICES_DIR: _d, ...rest } = process.env;
  return { ...rest, ...extra };
}

/**
 * Runs in the namespace: the global setup, then what answers, then the teardown and what is left.
 * Processes are looked for before the child exits: its exit would stop them whatever teardown did.
 */
const PROBE = `
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { isListening } from ${JSON.stringify(DEVSTACK)};
import { setup, teardown } from ${JSON.stringify(SETUP)};

const processesIn = (dir) => readdirSync('/proc').filter((pid) => /^\\d+$/.test(pid)).flatMap((pid) => {
  try {
    const cmdline = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ');
    return cmdline.includes(dir) ? [cmdline.split(' ')[0].split('/').at(-1)] : [];
  } catch { return []; }
});

await setup();
const nats = process.env.NATS_URL;
const admin = process.env.TEST_DATABASE_ADMIN_URL;
const dir = process.env.MUNIM_TEST_SERVICES_DIR;
const client = new pg.Client({ connectionString: admin });
await client.connect();
const { rows } = await client.query('select current_setting($1) as version', ['server_version_num']);
await client.end();
const nc = await connect({ servers: nats });
const info = await nc.request('$JS.API.INFO', '', { timeout: 5000 });
await nc.close();
const running = processesIn(dir).sort();
await teardown();
const [natsPort, pgPort] = [new URL(nats).port, new URL(admin).port].map(Number);
console.log(JSON.stringify({
  nats, admin, dir, running,
  postgres: Number(rows[0].version),
  jetstream: JSON.parse(new TextDecoder().decode(info.data)).type,
  after: {
    listening: [await isListening('127.0.0.1', natsPort), await isListening('127.0.0.1', pgPort)],
    processes: processesIn(dir),
    dir: existsSync(dir),
  },
}));
`;

describe('the test run on a machine where nothing listens', () => {
  it('starts a PostgreSQL and a NATS of its own, and leaves nothing behind', async () => {
    const { stdout } = await run(
      'unshare',
      [
        '-mn',
        'sh',
        '-c',
        'ip link set lo up && exec "$0" --input-type=module -e "$1"',
        process.execPath,
        PROBE,
      ],
      { cwd: ROOT, env: unconfigured(), timeout: 120_000 },
    );
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
    expect(report.nats).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    expect(report.admin).toMatch(/^postgres:\/\/munim:[^@]+@127\.0\.0\.1:\d+\/postgres$/);
    // Their own ports and data, apart from `npm start`'s (.data/, 5499) and the machine's.
    expect(new URL(report.nats).port).not.toBe('4222');
    expect(['5432', '5499']).not.toContain(new URL(report.admin).port);
    expect(report.dir).toMatch(new RegExp(`^${tmpdir()}/munim-test-services-`));
    expect(report.running).toEqual(expect.arrayContaining(['nats-server', 'postgres']));
    expect(report.postgres).toBeGreaterThanOrEqual(170000);
    expect(report.jetstream).toBe('io.nats.jetstream.api.v1.account_info_response');
    expect(report.after).toEqual({ listening: [false, false], processes: [], dir: false });
  }, 120_000);
});

describe('a machine without a system tool the tests drive', () => {
  let bin: string;
  beforeAll(async () => {
    // A PATH with node and nats-server but neither espeak-ng nor opusenc.
    bin = await mkdtemp(join(tmpdir(), 'munim-path-'));
    await symlink(process.execPath, join(bin, 'node'));
    const natsServer = (await run('sh', ['-c', 'command -v nats-server'])).stdout.trim();
    await symlink(natsServer, join(bin, 'nats-server'));
  });
  afterAll(async () => {
    await rm(bin, { recursive: true, force: true });
  });

  it('is told in one line what is missing and how to install it, and no test runs', async () => {
    const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
    const result = await run(process.execPath, [vitest, 'run', 'packages/testkit/test/fixtures.test.ts'], {
      cwd: ROOT,
      // Any executable passes for Chromium here: only espeak-ng and opusenc are missing.
      env: unconfigured({ PATH: bin, CHROMIUM_PATH: process.execPath, NO_COLOR: '1' }),
      timeout: 60_000,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in result ? result.code : 0).toBe(1);
    expect(result.stderr.trim()).toBe(
      'munim: the tests need espeak-ng, opusenc, not found on this machine: install with `sudo apt-get install -y espeak-ng opus-tools`',
    );
    expect(result.stdout).not.toMatch(/Test Files|✓/);
  }, 60_000);
});
