import { getEventListeners, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionFetch } from '../src/http.ts';

let server: Server;
let url: string;
const held: (() => void)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hold') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: started\n\n');
      held.push(() => res.end());
      return;
    }
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const release of held) release();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('sessionFetch', () => {
  it('keeps one abort listener on the session signal however many requests it made', async () => {
    const session = new AbortController();
    for (let i = 0; i < 300; i += 1) {
      const response = await sessionFetch(`${url}/`, { signal: session.signal });
      expect(await response.text()).toBe('ok');
    }
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(1);
  });

  it('aborts requests still running, body included, when the session closes', async () => {
    const session = new AbortController();
    const response = await sessionFetch(`${url}/hold`, { signal: session.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('started');
    const pending = sessionFetch(`${url}/hold`, { signal: session.signal });
    const second = await pending;
    session.abort(new Error('session closed'));
    await expect(reader.read()).rejects.toThrow();
    await expect(second.text()).rejects.toThrow();
    await expect(sessionFetch(`${url}/`, { signal: session.signal })).rejects.toThrow('session closed');
  });

  it('passes requests without a signal through unchanged', async () => {
    expect(await (await sessionFetch(`${url}/`)).text()).toBe('ok');
  });
});
