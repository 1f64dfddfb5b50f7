import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Bus } from '@munim/bus';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/env.ts';
import { type HealthServer, healthChecks, healthPortFromEnv, serveHealthHttp } from '../src/health.ts';
import { healthcheckUrl } from '../src/healthcheck.ts';

const servers: HealthServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function serve(checks: () => Promise<Record<string, boolean>>, timeoutMs?: number) {
  const server = await serveHealthHttp(0, checks, { host: '127.0.0.1', ...(timeoutMs && { timeoutMs }) });
  if (!server) throw new Error('no server');
  servers.push(server);
  return server;
}

async function get(port: number, path: string, method = 'GET') {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const refused = (port: number) =>
  fetch(`http://127.0.0.1:${port}/livez`).then(
    () => false,
    (error: Error) => /ECONNREFUSED/.test(String((error.cause as Error | undefined)?.message ?? error)),
  );

const node = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  return { child, output: () => out };
};

describe('serveHealthHttp', () => {
  it('serves nothing when no port is configured', async () => {
    expect(await serveHealthHttp(undefined, async () => ({}))).toBeUndefined();
  });

  it('answers /livez, and /readyz with 200 and the checks when every check passes', async () => {
    const server = await serve(async () => ({ nats: true, postgres: true }));
    expect(await get(server.port, '/livez')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(server.port, '/readyz')).toEqual({
      status: 200,
      body: { status: 'ok', checks: { nats: true, postgres: true } },
    });
  });

  it('answers /readyz with 503 naming the failed check, while /livez stays 200', async () => {
    let postgres = false;
    const server = await serve(async () => ({ nats: true, postgres }));
    expect(await get(server.port, '/readyz')).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { nats: true, postgres: false } },
    });
    expect((await get(server.port, '/livez')).status).toBe(200);
    postgres = true;
    expect((await get(server.port, '/readyz')).status).toBe(200);
  });

  it('answers 503 when a check throws or outlasts the timeout', async () => {
    const throwing = await serve(async () => {
      throw new Error('pool closed');
    });
    expect(await get(throwing.port, '/readyz')).toEqual({
      status: 503,
      body: { status: 'unavailable', error: 'pool closed' },
    });
    const hanging = await serve(() => new Promise(() => {}), 100);
    const res = await get(hanging.port, '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatch(/longer than 100 ms/);
  });

  it('answers 404 elsewhere and 405 to anything but GET and HEAD', async () => {
    const server = await serve(async () => ({}));
    expect((await get(server.port, '/metrics')).status).toBe(404);
    expect((await get(server.port, '/readyz', 'POST')).status).toBe(405);
    expect((await fetch(`http://127.0.0.1:${server.port}/livez`, { method: 'HEAD' })).status).toBe(200);
  });

  it('reports not ready once draining, and frees its port on close', async () => {
    const server = await serve(async () => ({ nats: true }));
    server.drain();
    expect(await get(server.port, '/readyz')).toEqual({ status: 503, body: { status: 'draining' } });
    expect((await get(server.port, '/livez')).status).toBe(200);
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await refused(server.port)).toBe(true);
    const again = await serveHealthHttp(server.port, async () => ({}), { host: '127.0.0.1' });
    expect(again?.port).toBe(server.port);
    await again?.close();
  });

  it("reports the bus's connection with the service's own checks", async () => {
    let closed = false;
    const bus = { nc: { isClosed: () => closed } } as unknown as Bus;
    const checks = healthChecks(bus, async () => ({ postgres: true }));
    expect(await checks()).toEqual({ nats: true, postgres: true });
    closed = true;
    expect(await checks()).toEqual({ nats: false, postgres: true });
  });
});

describe('HEALTH_PORT', () => {
  it('is optional, and a bad value is a ConfigError naming it', () => {
    expect(healthPortFromEnv({})).toBeUndefined();
    expect(healthPortFromEnv({ HEALTH_PORT: '' })).toBeUndefined();
    expect(healthPortFromEnv({ HEALTH_PORT: '9090' })).toBe(9090);
    for (const bad of ['http', '0', '70000', '90.5']) {
      expect(() => healthPortFromEnv({ HEALTH_PORT: bad })).toThrow(ConfigError);
      expect(() => healthPortFromEnv({ HEALTH_PORT: bad })).toThrow(/HEALTH_PORT: must be a port number/);
    }
  });
});

describe('runMain with a probe server', () => {
  it('turns not ready when SIGTERM arrives, stays live while stopping, and closes the port after stop', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/probe-main.ts', import.meta.url));
    const { child, output } = node([fixture]);
    await expect.poll(output).toMatch(/listening \d+/);
    const port = Number(/listening (\d+)/.exec(output())?.[1]);
    expect((await get(port, '/readyz')).status).toBe(200);

    child.kill('SIGTERM');
    await expect.poll(output).toMatch(/stopping/);
    expect(await get(port, '/readyz')).toEqual({ status: 503, body: { status: 'draining' } });
    expect((await get(port, '/livez')).status).toBe(200);

    const exited = once(child, 'exit');
    child.stdin?.write('go\n');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(await refused(port)).toBe(true);
  });
});

describe("the image's healthcheck", () => {
  it("asks the gateway's and messaging's /readyz, demo-books' /healthz, and every other service's HEALTH_PORT", () => {
    expect(healthcheckUrl({})).toBe('http://127.0.0.1:8080/readyz');
    expect(healthcheckUrl({ SERVICE: 'gateway', PORT: '8081', HEALTH_PORT: '9090' })).toBe(
      'http://127.0.0.1:8081/readyz',
    );
    expect(healthcheckUrl({ SERVICE: 'demo-books' })).toBe('http://127.0.0.1:3100/healthz');
    expect(healthcheckUrl({ SERVICE: 'agent', HEALTH_PORT: '9090' })).toBe('http://127.0.0.1:9090/readyz');
    expect(healthcheckUrl({ SERVICE: 'agent' })).toBeUndefined();
    expect(healthcheckUrl({ SERVICE: 'messaging', HEALTH_PORT: '9090' })).toBe(
      'http://127.0.0.1:8090/readyz',
    );
    expect(healthcheckUrl({ SERVICE: 'messaging', MESSAGING_PORT: '8091' })).toBe(
      'http://127.0.0.1:8091/readyz',
    );
  });

  it('exits 0 when ready, 1 when not ready or not answering', async () => {
    const script = fileURLToPath(new URL('../src/healthcheck.ts', import.meta.url));
    let ready = true;
    const server = await serve(async () => ({ nats: ready }));
    const run = async (port: number) => {
      const { child } = node([script], { SERVICE: 'router', HEALTH_PORT: String(port) });
      const [code] = await once(child, 'exit');
      return code;
    };
    expect(await run(server.port)).toBe(0);
    ready = false;
    expect(await run(server.port)).toBe(1);
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await run(server.port)).toBe(1);
  });
});
