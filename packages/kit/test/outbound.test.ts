// Model and speech endpoints are called with redirects refused, and an endpoint
// people saved is checked at connect time — the address the socket connects to, so a name checked
// while it pointed at a public address cannot be rebound to a private one afterwards.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_ALLOWLIST, EndpointAllowlistSchema, endpointProblem, outboundFetch } from '../src/index.ts';

/** A server that counts what reaches it; `redirectTo` makes it answer 302 to there. */
function counting(redirectTo?: () => string) {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    if (redirectTo) res.writeHead(302, { location: `${redirectTo()}${req.url}` }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  return { hits, server };
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

const target = counting();
let targetUrl = '';
const redirector = counting(() => targetUrl);
let redirectorUrl = '';

beforeAll(async () => {
  targetUrl = `http://127.0.0.1:${await listen(target.server)}`;
  redirectorUrl = `http://127.0.0.1:${await listen(redirector.server)}`;
});

afterAll(async () => {
  for (const s of [target.server, redirector.server]) await new Promise((resolve) => s.close(resolve));
});

/** The cause chain of an error, as text. */
const causes = (error: unknown): string => {
  const parts: string[] = [];
  for (let e = error as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    parts.push(String(e.message));
  return parts.join(' ← ');
};

describe('outbound calls to model and speech endpoints', () => {
  it.each([301, 302, 303, 307, 308])(
    'never follow a redirect (%s): the key does not go elsewhere',
    async (status) => {
      const bouncing = createServer((req, res) =>
        res.writeHead(status, { location: `${targetUrl}${req.url}` }).end(),
      );
      const url = `http://127.0.0.1:${await listen(bouncing)}`;
      const before = target.hits.length;
      try {
        await expect(
          outboundFetch()(`${url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: 'Bearer sk-secret' },
            body: '{}',
          }),
        ).rejects.toThrow();
        expect(target.hits).toHaveLength(before);
      } finally {
        await new Promise((resolve) => bouncing.close(resolve));
      }
    },
  );

  it('still reach an endpoint that answers', async () => {
    const response = await outboundFetch()(`${targetUrl}/v1/models`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('refuse, at connect time, a saved endpoint whose name resolves to a private address', async () => {
    const port = new URL(targetUrl).port;
    // When the row was saved the name resolved to a public address…
    const publicThen = async () => ['93.184.216.34'];
    expect(await endpointProblem(`http://localhost:${port}/v1`, EMPTY_ALLOWLIST, publicThen)).toBeNull();
    // …and now it points at this machine: the connection is refused before a byte is sent.
    const before = target.hits.length;
    const error = await outboundFetch({ allowlist: EMPTY_ALLOWLIST })(
      `http://localhost:${port}/v1/models`,
    ).catch((e: unknown) => e);
    expect(causes(error)).toMatch(
      /localhost resolves to a non-public address \(127\.0\.0\.1 is a loopback address\)/,
    );
    expect(target.hits).toHaveLength(before);
  });

  it('refuse a literal private address unless the allow-list covers it', async () => {
    const before = target.hits.length;
    await expect(outboundFetch({ allowlist: EMPTY_ALLOWLIST })(`${targetUrl}/v1/models`)).rejects.toThrow(
      /127\.0\.0\.1 is not a public address/,
    );
    expect(target.hits).toHaveLength(before);
    const byRange = EndpointAllowlistSchema.parse('10.0.0.0/8, 127.0.0.1');
    expect((await outboundFetch({ allowlist: byRange })(`${targetUrl}/v1/models`)).status).toBe(200);
    const byName = EndpointAllowlistSchema.parse('localhost');
    const port = new URL(targetUrl).port;
    expect((await outboundFetch({ allowlist: byName })(`http://localhost:${port}/v1/models`)).status).toBe(
      200,
    );
    expect(target.hits).toHaveLength(before + 2);
  });

  it('check a redirect target too: a saved endpoint cannot bounce to a private one', async () => {
    const before = target.hits.length;
    const allowRedirector = EndpointAllowlistSchema.parse('127.0.0.1');
    // The redirector is allowed; what it points at would be too, but a redirect is never followed.
    await expect(
      outboundFetch({ allowlist: allowRedirector })(`${redirectorUrl}/v1/models`),
    ).rejects.toThrow();
    expect(target.hits).toHaveLength(before);
    expect(redirector.hits.length).toBeGreaterThan(0);
  });
});
