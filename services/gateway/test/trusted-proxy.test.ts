// Lockouts and rate limits behind a proxy. Clients reach the gateway through real
// HTTP proxies that append X-Forwarded-For (as nginx's $proxy_add_x_forwarded_for does), each
// client from its own loopback address; the gateway keys failed authentications and anonymous rate
// limits by the address its trusted hops vouch for, and never by what a client wrote itself.
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@munim/kit';
import { type FixtureNats, test } from '@munim/testkit';
import Fastify from 'fastify';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { clientAddress, normaliseAddress, trustHops } from '../src/client-address.ts';
import { loadEnv } from '../src/env.ts';
import { completeEvent, fakeBackend, startGateway } from './helpers.ts';

const KEY_A = 'key-a-proxy-7f3e-0123456789';
const KEY_B = 'key-b-proxy-2b9d-0123456789';
const KEYS = `${KEY_A}:ent-a:org-a,${KEY_B}:ent-b:org-b`;
const FAILURES = 3;
let testBus: FixtureNats;
const closers: (() => Promise<unknown>)[] = [];
let backend: Awaited<ReturnType<typeof fakeBackend>>;
/** TRUST_PROXY_HOPS=1 behind one proxy. */
let oneHop: string;
/** TRUST_PROXY_HOPS=0, reached directly. */
let direct: string;
/** TRUST_PROXY_HOPS=2 behind an edge proxy and an inner one. */
let twoHops: string;
/** TRUST_PROXY_HOPS=1 behind the same two proxies: everyone is the edge proxy. */
let oneOfTwo: string;
/** No credentials, TRUST_PROXY_HOPS=1, three requests per window per caller, behind one proxy. */
let open: string;

const EDGE_ADDRESS = '127.0.9.9';

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request from a given local address, headers as given (an array: one header line each). */
function send(
  url: string,
  opts: { from: string; path?: string; headers?: Record<string, string | string[]>; body?: unknown },
): Promise<Sent> {
  const target = new URL(opts.path ?? '/v1/query', url);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: body === undefined ? 'GET' : 'POST',
        localAddress: opts.from,
        agent: false,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A reverse proxy in front of `target`: it appends the address it was reached from to whatever
 * X-Forwarded-For arrived, and connects onwards from `localAddress`.
 */
async function startProxy(target: string, localAddress = '127.0.0.1'): Promise<string> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const forwarded = incoming.headers['x-forwarded-for'];
    const peer = incoming.socket.remoteAddress ?? '';
    const headers = { ...incoming.headers, 'x-forwarded-for': forwarded ? `${forwarded}, ${peer}` : peer };
    const onward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers,
        localAddress,
        agent: false,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    onward.on('error', () => outgoing.destroy());
    incoming.pipe(onward);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function gateway(env: Record<string, string>): Promise<string> {
  const started: { gateway: Gateway; url: string } = await startGateway(testBus, env);
  closers.push(() => started.gateway.stop());
  return started.url;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const askA = { query: 'cash position', entityId: 'ent-a', orgId: 'org-a' };
const askB = { query: 'cash position', entityId: 'ent-b', orgId: 'org-b' };

/** `count` wrong keys from `from`, each answered 401; `spoof` gives each its own X-Forwarded-For. */
async function guess(url: string, from: string, count: number, spoof?: () => string | string[]) {
  for (let i = 0; i < count; i += 1) {
    const headers = {
      ...bearer(`wrong-${i}-${randomInt(1e9)}-0123456789abc`),
      ...(spoof ? { 'x-forwarded-for': spoof() } : {}),
    };
    expect((await send(url, { from, headers, body: askA })).status).toBe(401);
  }
}

function expectLockedOut(sent: Sent) {
  expect(sent.status).toBe(429);
  expect(Number(sent.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(JSON.parse(sent.body)).toMatchObject({ error: { code: 'RATE_LIMITED' } });
}

function expectAnswered(sent: Sent) {
  expect(sent.status).toBe(200);
  expect(sent.body).toContain('event: complete');
}

const octet = () => randomInt(256);
/** What a client might write into X-Forwarded-For to pass for someone else. */
const SPOOFS: (() => string | string[])[] = [
  () => `${octet()}.${octet()}.${octet()}.${octet()}`,
  () => `2001:db8::${randomInt(0xffff).toString(16)}`,
  () => `${octet()}.${octet()}.0.1, 10.0.${octet()}.${octet()}`,
  () => [`198.51.100.${octet()}`, `203.0.113.${octet()}`],
  () => 'unknown',
  () => ' , ,',
  () => `127.0.0.${octet()}:${randomInt(65_536)}`,
];
const spoof = () => SPOOFS[randomInt(SPOOFS.length)]?.() ?? '';

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  backend = await fakeBackend(testBus, (message) => [completeEvent(message.data.query, 'done')]);
  const locked = {
    GATEWAY_API_KEYS: KEYS,
    AUTH_FAILURE_MAX: String(FAILURES),
    AUTH_FAILURE_WINDOW_MS: '60000',
  };
  oneHop = await startProxy(await gateway({ ...locked, TRUST_PROXY_HOPS: '1' }));
  direct = await gateway(locked);
  const edgeOf = async (url: string) => startProxy(await startProxy(url), EDGE_ADDRESS);
  twoHops = await edgeOf(await gateway({ ...locked, TRUST_PROXY_HOPS: '2' }));
  oneOfTwo = await edgeOf(await gateway({ ...locked, TRUST_PROXY_HOPS: '1' }));
  open = await startProxy(
    await gateway({ TRUST_PROXY_HOPS: '1', RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' }),
  );
});

afterAll(async () => {
  await backend?.stop();
  for (const close of closers.reverse()) await close().catch(() => undefined);
});

describe('failed authentications behind one trusted proxy', () => {
  test('locks out the guesser alone: tenants behind the same proxy keep working', async () => {
    const attacker = '127.0.1.1';
    await guess(oneHop, attacker, FAILURES);
    // Locked out with anything, a valid key too (else the answer would tell a guess that was right).
    expectLockedOut(await send(oneHop, { from: attacker, headers: bearer(KEY_A), body: askA }));
    expectLockedOut(
      await send(oneHop, { from: attacker, headers: bearer('wrong-again-0123456789abcd'), body: askA }),
    );

    expectAnswered(await send(oneHop, { from: '127.0.1.2', headers: bearer(KEY_A), body: askA }));
    expectAnswered(await send(oneHop, { from: '127.0.1.3', headers: bearer(KEY_B), body: askB }));
  });

  test('ignores what a client writes into X-Forwarded-For: it neither escapes its lockout nor frames another', async () => {
    const attacker = '127.0.2.1';
    await guess(oneHop, attacker, FAILURES, spoof);
    for (let i = 0; i < 10; i += 1) {
      const headers = { ...bearer(KEY_A), 'x-forwarded-for': spoof() };
      expectLockedOut(await send(oneHop, { from: attacker, headers, body: askA }));
    }
    // Another client naming the blocked address as its own is still itself.
    const framed = { ...bearer(KEY_B), 'x-forwarded-for': attacker };
    expectAnswered(await send(oneHop, { from: '127.0.2.2', headers: framed, body: askB }));
  });
});

describe('failed authentications without trusted hops (TRUST_PROXY_HOPS=0)', () => {
  test('keys a direct client by its socket address, whatever X-Forwarded-For it sends', async () => {
    const attacker = '127.0.3.1';
    await guess(direct, attacker, FAILURES, spoof);
    for (let i = 0; i < 5; i += 1) {
      const headers = { ...bearer(KEY_A), 'x-forwarded-for': spoof() };
      expectLockedOut(await send(direct, { from: attacker, headers, body: askA }));
    }
    const framed = { ...bearer(KEY_A), 'x-forwarded-for': attacker };
    expectAnswered(await send(direct, { from: '127.0.3.2', headers: framed, body: askA }));
  });
});

describe('failed authentications behind two proxies', () => {
  test('with two trusted hops keys each client by the address the edge proxy saw', async () => {
    const attacker = '127.0.4.1';
    await guess(twoHops, attacker, FAILURES, spoof);
    expectLockedOut(await send(twoHops, { from: attacker, headers: bearer(KEY_A), body: askA }));
    const framed = { ...bearer(KEY_B), 'x-forwarded-for': `${attacker}, ${EDGE_ADDRESS}` };
    expectAnswered(await send(twoHops, { from: '127.0.4.2', headers: framed, body: askB }));
  });

  test('with one trusted hop never reads past it: every client is the edge proxy', async () => {
    await guess(oneOfTwo, '127.0.5.1', FAILURES, spoof);
    expectLockedOut(await send(oneOfTwo, { from: '127.0.5.2', headers: bearer(KEY_B), body: askB }));
  });
});

describe('rate limits without credentials behind one trusted proxy', () => {
  test('counts each client address on its own, and a spoofed header does not reset the count', async () => {
    const first = '127.0.6.1';
    for (let i = 0; i < 3; i += 1) expectAnswered(await send(open, { from: first, body: askA }));
    const limited = await send(open, { from: first, headers: { 'x-forwarded-for': spoof() }, body: askA });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body)).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expectAnswered(await send(open, { from: '127.0.6.2', body: askA }));
  });
});

/** What `clientAddress` makes of a socket address and X-Forwarded-For with `hops` trusted. */
async function addressOf(hops: number, socket: string, forwardedFor?: string | string[]): Promise<string> {
  const app = Fastify({ trustProxy: trustHops(hops) });
  app.get('/', async (request) => clientAddress(request));
  try {
    const response = await app.inject({
      url: '/',
      remoteAddress: socket,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });
    return response.body;
  } finally {
    await app.close();
  }
}

const TABLE: [hops: number, socket: string, header: string | string[] | undefined, client: string][] = [
  [0, '10.0.0.1', '198.51.100.7', '10.0.0.1'],
  [1, '10.0.0.1', undefined, '10.0.0.1'],
  [1, '10.0.0.1', '', '10.0.0.1'],
  [1, '10.0.0.1', ' , ,', '10.0.0.1'],
  [1, '10.0.0.1', 'unknown', '10.0.0.1'],
  [1, '10.0.0.1', '198.51.100.7, _hidden', '10.0.0.1'],
  [1, '10.0.0.1', 'garbage, 198.51.100.7', '198.51.100.7'],
  [1, '10.0.0.1', '1.2.3.4,,198.51.100.7 ', '198.51.100.7'],
  [1, '10.0.0.1', '203.0.113.7:5123', '203.0.113.7'],
  [1, '10.0.0.1', '[2001:DB8:0::7]:443', '2001:db8::7'],
  [1, '10.0.0.1', '::ffff:203.0.113.7', '203.0.113.7'],
  [1, '::ffff:10.0.0.1', '<script>', '10.0.0.1'],
  [2, '10.0.0.1', 'x, 198.51.100.1, 10.0.0.2', '198.51.100.1'],
  [2, '10.0.0.1', '198.51.100.1, not-an-ip', '10.0.0.1'],
  [3, '10.0.0.1', '198.51.100.1', '198.51.100.1'],
  [1, '10.0.0.1', ['6.6.6.6', '198.51.100.9'], '198.51.100.9'],
];

describe('the client address through trusted hops', () => {
  test.each(TABLE)('hops %i, socket %s, X-Forwarded-For %j: %s', async (hops, socket, header, expected) => {
    expect(await addressOf(hops, socket, header)).toBe(expected);
  });

  test('takes the entry the outermost trusted proxy wrote, for generated chains of proxies and spoofed entries', async () => {
    const apps = [0, 1, 2, 3, 4].map((hops) => {
      const one = Fastify({ trustProxy: trustHops(hops) });
      one.get('/', async (request) => clientAddress(request));
      return one;
    });
    const v4 = () => `${1 + randomInt(223)}.${octet()}.${octet()}.${octet()}`;
    // Canonical already (no zero groups, no leading zeros): the form it is expected back in.
    const v6 = () =>
      `2001:db8:${(1 + randomInt(0xfffe)).toString(16)}::${(1 + randomInt(0xfffe)).toString(16)}`;
    // How a proxy may write an address, and the address it means.
    const written = (): [string, string] => {
      const address = randomInt(3) === 0 ? v6() : v4();
      const v6Form = address.includes(':');
      const forms = v6Form
        ? [address, address.toUpperCase(), `[${address}]:${randomInt(65_536)}`]
        : [address, `${address}:${randomInt(65_536)}`, `::ffff:${address}`];
      return [forms[randomInt(forms.length)] ?? address, address];
    };
    const junk = () => [v4(), v6(), 'unknown', '', '  ', '_obf', '999.1.1.1', 'a, b'][randomInt(8)] ?? '';
    try {
      for (let run = 0; run < 2_000; run += 1) {
        const proxies = randomInt(5);
        const hops = randomInt(proxies + 1);
        // Left to right: what the client wrote, then what each proxy appended (the client's address
        // first, by the outermost); the innermost proxy is the socket peer.
        const spoofed = Array.from({ length: randomInt(4) }, junk);
        const chain = Array.from({ length: proxies }, written);
        // A socket's address is written plainly, an IPv4 one on a dual-stack socket as IPv4-mapped.
        const peer = randomInt(2) === 0 ? v4() : v6();
        const socket = [!peer.includes(':') && randomInt(2) === 0 ? `::ffff:${peer}` : peer, peer] as const;
        const header = [...spoofed, ...chain.map(([text]) => text)].join(', ');
        // hops proxies trusted: the entry hops places from the right, hop 0 being the socket.
        const expected = hops === 0 ? socket[1] : chain[chain.length - hops]?.[1];
        const response = await apps[hops]?.inject({
          url: '/',
          remoteAddress: socket[0],
          headers: header ? { 'x-forwarded-for': header } : {},
        });
        expect(response?.body, `hops ${hops}, socket ${socket[0]}, X-Forwarded-For ${header}`).toBe(expected);
      }
    } finally {
      for (const one of apps) await one.close();
    }
  });

  test('writes every address one way, and refuses what is none', () => {
    expect(normaliseAddress('2001:0DB8:0000::0001')).toBe('2001:db8::1');
    expect(normaliseAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(normaliseAddress('::FFFF:a00:1')).toBe('10.0.0.1');
    for (const bad of ['01.2.3.4', '256.1.1.1', '1.2.3.4.5', ':::', 'example.com', '']) {
      expect(normaliseAddress(bad)).toBeNull();
    }
  });
});

describe('TRUST_PROXY_HOPS', () => {
  test('defaults to 0 and refuses anything but a whole number from 0 to 16, naming the variable', () => {
    expect(loadEnv({}).TRUST_PROXY_HOPS).toBe(0);
    expect(loadEnv({ TRUST_PROXY_HOPS: '2' }).TRUST_PROXY_HOPS).toBe(2);
    for (const value of ['-1', '1.5', 'two', '17']) {
      expect(() => loadEnv({ TRUST_PROXY_HOPS: value })).toThrow(ConfigError);
      expect(() => loadEnv({ TRUST_PROXY_HOPS: value })).toThrow(/TRUST_PROXY_HOPS/);
    }
    expect(() => trustHops(-1)).toThrow(/TRUST_PROXY_HOPS/);
  });
});
