/**
 * The test run's global setup (vitest `globalSetup`), once for all test files. It checks the
 * system tools the tests drive, then finds the PostgreSQL and NATS the tests use: the configured
 * ones (TEST_DATABASE_ADMIN_URL, NATS_URL), else the machine's (127.0.0.1:5432, 127.0.0.1:4222),
 * else its own, started with the code `npm start` uses (an embedded PostgreSQL, a nats-server
 * from PATH) on free ports with their data in a temporary directory, and stopped at the end.
 * It hands their addresses to the test files in the environment, which every worker inherits.
 */
import { constants } from 'node:fs';
import { access, chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Embedded, ensureNats, isListening, startPostgres } from '@munim/devstack';
import { canConnect, localAdminUrl, natsUrl } from '@munim/testkit/addresses';
import { freePort } from '@munim/testkit/ports';

const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const isExecutable = (path: string) =>
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );

async function onPath(command: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(delimiter))
    if (dir && (await isExecutable(join(dir, command)))) return true;
  return false;
}

/** The system tools some tests drive, and the Debian package of each. */
const TOOLS = [
  { name: () => 'nats-server', found: () => onPath('nats-server'), apt: 'nats-server' },
  {
    name: () =>
      process.env.CHROMIUM_PATH
        ? `Chromium at CHROMIUM_PATH=${chromiumPath()}`
        : `Chromium at ${chromiumPath()}`,
    found: () => isExecutable(chromiumPath()),
    apt: 'chromium',
  },
  { name: () => 'espeak-ng', found: () => onPath('espeak-ng'), apt: 'espeak-ng' },
  // WhatsApp voice notes are OGG/Opus: the tests encode espeak-ng's speech with it.
  { name: () => 'opusenc', found: () => onPath('opusenc'), apt: 'opus-tools' },
];

/** What a machine without some of them is told, in one line; undefined when none is missing. */
async function missingTools(): Promise<string | undefined> {
  const missing = [];
  for (const tool of TOOLS) if (!(await tool.found())) missing.push(tool);
  if (missing.length === 0) return undefined;
  return (
    `the tests need ${missing.map((t) => t.name()).join(', ')}, not found on this machine: ` +
    `install with \`sudo apt-get install -y ${missing.map((t) => t.apt).join(' ')}\``
  );
}

/** Whether the first server of a NATS_URL (`nats://host:port,…` or `host:port`) accepts connections. */
function natsAnswers(url: string): Promise<boolean> {
  const first = url.split(',')[0]?.trim() ?? '';
  const { hostname, port } = new URL(first.includes('://') ? first : `nats://${first}`);
  return isListening(hostname.replace(/^\[|\]$/g, ''), Number(port || 4222), 2_000);
}

/** What this run started, stopped by `teardown` in reverse. */
const started: Embedded[] = [];
let dataDir: string | undefined;

/** The directory of this run's own PostgreSQL and NATS, made on first need. */
async function ownDataDir(): Promise<string> {
  if (!dataDir) {
    dataDir = await mkdtemp(join(tmpdir(), 'munim-test-services-'));
    // As root the embedded PostgreSQL runs as the postgres user, who must be able to enter it.
    await chmod(dataDir, 0o755);
    process.env.MUNIM_TEST_SERVICES_DIR = dataDir;
  }
  return dataDir;
}

async function resolveNats(): Promise<string> {
  const configured = process.env.NATS_URL;
  if (configured) {
    if (await natsAnswers(configured)) return configured;
    throw new Error(
      `NATS_URL=${configured}: nothing answers there (unset it and the tests start a nats-server of their own)`,
    );
  }
  const local = natsUrl();
  if (await natsAnswers(local)) return local;
  const nats = await ensureNats(join(await ownDataDir(), 'nats'), await freePort());
  started.push(nats);
  return nats.url;
}

async function resolvePostgres(): Promise<string> {
  const configured = process.env.TEST_DATABASE_ADMIN_URL;
  if (configured) {
    if (await canConnect(configured)) return configured;
    throw new Error(
      `TEST_DATABASE_ADMIN_URL: cannot connect to ${redacted(configured)} (unset it and the tests start a PostgreSQL of their own)`,
    );
  }
  const local = await localAdminUrl();
  if (local) return local;
  const server = await startPostgres(join(await ownDataDir(), 'postgres'), await freePort());
  started.push(server);
  // Its user is the cluster's superuser: the admin of the tests' throwaway databases.
  const admin = new URL(server.url);
  admin.pathname = '/postgres';
  return admin.toString();
}

function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export async function setup(): Promise<void> {
  const missing = await missingTools();
  if (missing) {
    // One line and no test run: a thrown error would come with a stack and "No test files found".
    process.stderr.write(`munim: ${missing}\n`);
    process.exit(1);
  }
  try {
    process.env.NATS_URL = await resolveNats();
    process.env.TEST_DATABASE_ADMIN_URL = await resolvePostgres();
  } catch (error) {
    await teardown();
    throw error;
  }
}

export async function teardown(): Promise<void> {
  for (const service of started.splice(0).reverse()) await service.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}
