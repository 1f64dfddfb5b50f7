import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { freePort } from './nats-server.ts';

/**
 * A TCP proxy in front of a NATS server. `swallow()` drops what clients send from then on (their
 * bytes are "in the dying socket"); `cut()` then closes every connection, as a server's death
 * does. Connections made after the cut pass through.
 */
export async function startProxy(
  upstream: string,
): Promise<{ url: string; swallow(): void; cut(): void; close(): Promise<void> }> {
  const target = new URL(upstream.replace(/^nats:/, 'http:'));
  const port = await freePort();
  const live = new Set<{ client: Socket; server: Socket; swallowed: boolean }>();
  const server: Server = createServer((client) => {
    const upstreamSocket = tcpConnect(Number(target.port), target.hostname);
    const pair = { client, server: upstreamSocket, swallowed: false };
    live.add(pair);
    client.on('data', (data) => {
      if (!pair.swallowed) upstreamSocket.write(data);
    });
    upstreamSocket.on('data', (data) => client.write(data));
    const end = () => {
      live.delete(pair);
      client.destroy();
      upstreamSocket.destroy();
    };
    client.on('close', end);
    upstreamSocket.on('close', end);
    client.on('error', end);
    upstreamSocket.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `nats://127.0.0.1:${port}`,
    swallow: () => {
      for (const pair of live) pair.swallowed = true;
    },
    cut: () => {
      for (const pair of live) {
        pair.client.destroy();
        pair.server.destroy();
      }
      live.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
