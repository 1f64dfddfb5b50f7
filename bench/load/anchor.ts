/**
 * The anchor of the load benchmark, in its own process (`forkAnchor`): a bare fastify route,
 * POST /v1/query, that answers every request with the same SSE bytes from memory (one captured
 * answer of the gateway), written one event at a time like a stream, then ended. What the stack
 * spends beyond this is the cost of answering rather than of serving the bytes.
 */
import type { ChildProcess } from 'node:child_process';
import Fastify from 'fastify';
import { forkServer } from './child.ts';

/** The SSE messages of a stream, each with its blank-line terminator. */
export function sseMessages(stream: string): string[] {
  return stream.match(/[\s\S]*?(?:\r\n\r\n|\n\n|\r\r)/g) ?? [];
}

export interface Anchor {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the anchor server in a process of its own; it answers every POST /v1/query with `stream`. */
export async function forkAnchor(stream: string): Promise<Anchor> {
  const { ready, child, stop } = await forkServer<{ url: string }>(import.meta.url, { stream }, 'anchor');
  return { url: ready.url, child, stop };
}

if (import.meta.main) {
  process.once('message', async ({ stream }: { stream: string }) => {
    const messages = sseMessages(stream).map((m) => Buffer.from(m));
    const app = Fastify({ logger: false });
    app.post('/v1/query', (_request, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const message of messages) res.write(message);
      res.end();
    });
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      process.send?.({ url });
    } catch (error) {
      process.send?.({ error: String(error) });
      process.exit(1);
    }
    process.disconnect();
    process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
  });
}
