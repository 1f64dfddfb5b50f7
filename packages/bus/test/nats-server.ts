/**
 * A private nats-server for auth tests: a config the test writes, a free port, a temporary store,
 * and TLS material made with openssl. Also used by test/deploy.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATS_USERS, natsPasswordVar } from '../src/nats-conf.ts';
import type { NatsUserName } from '../src/nats-permissions.ts';

/** infra/nats/nats.conf as committed: what docker-compose.yml mounts. */
export const SHIPPED_NATS_CONF = fileURLToPath(new URL('../../../infra/nats/nats.conf', import.meta.url));

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A running nats-server of a test. */
export interface NatsServer {
  url: string;
  port: number;
  /** Everything the server printed, for diagnosing a failure. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts nats-server on a free port with the config `render` returns; resolves when it is ready. */
export async function startNatsServer(
  render: (ctx: { port: number; storeDir: string }) => string,
  env: Record<string, string> = {},
): Promise<NatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'munim-nats-'));
  const port = await freePort();
  const config = join(dir, 'nats.conf');
  writeFileSync(config, render({ port, storeDir: join(dir, 'js') }));
  let output = '';
  const child: ChildProcess = spawn('nats-server', ['-c', config], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  while (!/Server is ready/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nats-server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `nats://127.0.0.1:${port}`, port, output: () => output, stop };
}

/** Paths of the TLS material `makeTls` made. */
export interface TlsFiles {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A CA that signed neither certificate. */
  otherCa: string;
}

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, made with openssl. */
export function makeTls(): TlsFiles {
  const dir = mkdtempSync(join(tmpdir(), 'munim-tls-'));
  const p = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const ca of ['ca', 'other-ca'])
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      p(`${ca}.key`),
      '-out',
      p(`${ca}.pem`),
      '-days',
      '1',
      '-subj',
      `/CN=munim test ${ca}`,
    );
  const issue = (name: string, subject: string, ext: string) => {
    writeFileSync(p(`${name}.ext`), `${ext}\n`);
    ssl('req', '-new', ...ec, '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`), '-subj', subject);
    ssl(
      'x509',
      '-req',
      '-in',
      p(`${name}.csr`),
      '-CA',
      p('ca.pem'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      p(`${name}.pem`),
      '-days',
      '1',
      '-extfile',
      p(`${name}.ext`),
    );
  };
  issue('server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth');
  issue('client', '/CN=munim-client', 'extendedKeyUsage=clientAuth');
  return {
    dir,
    ca: p('ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
    otherCa: p('other-ca.pem'),
  };
}

/**
 * A random password per NATS user (each service, and the migration job's `migrate`). Each starts
 * with `1e7`: unquoted, nats-server would parse such a value as a number and refuse the
 * configuration, so these prove the quoting below is needed and works.
 */
export function natsPasswords(): Record<NatsUserName, string> {
  return Object.fromEntries(
    NATS_USERS.map((s) => [s, `1e7${randomBytes(18).toString('base64url')}`]),
  ) as Record<NatsUserName, string>;
}

/**
 * The environment of the nats service as docker-compose.yml sets it: each password under its
 * `NATS_<SERVICE>_PASSWORD`, in double quotes, because nats-server parses a variable's value as
 * configuration and a quoted string stays a string.
 */
export const passwordEnv = (passwords: Record<NatsUserName, string>) =>
  Object.fromEntries(
    Object.entries(passwords).map(([s, pw]) => [natsPasswordVar(s as NatsUserName), `"${pw}"`]),
  );

/**
 * The committed infra/nats/nats.conf, verbatim, with this test's port, store and TLS (client
 * certificates required) appended: nats-server takes the last value of a repeated key.
 */
export function shippedConfWithTls(tls: TlsFiles) {
  return ({ port, storeDir }: { port: number; storeDir: string }) =>
    [
      readFileSync(SHIPPED_NATS_CONF, 'utf8'),
      '# test overrides',
      `port: ${port}`,
      'http_port: -1',
      `jetstream { store_dir: ${JSON.stringify(storeDir)} }`,
      `tls { cert_file: ${JSON.stringify(tls.serverCert)}, key_file: ${JSON.stringify(tls.serverKey)}, ca_file: ${JSON.stringify(tls.ca)}, verify: true, timeout: 2 }`,
      '',
    ].join('\n');
}
