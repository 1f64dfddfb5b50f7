import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import fastifySse, { type SSEPluginOptions } from '@fastify/sse';
import type { Following } from '@munim/bus';
import { relay } from '@munim/kit';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../context.ts';
import { forClient, type StreamView } from '../detail.ts';

/** A client went away; nothing is written for it. */
const DISCONNECTED = { code: 'SERVICE_UNAVAILABLE', message: 'client disconnected' } as const;

/**
 * SSE for the routes that ask for it (`sse: 'manual'`), and their end at shutdown: `preClose`
 * ends every open stream with an `error` event, then cuts the sockets that never sent a request.
 */
export const streams = fp<Pick<GatewayContext, 'openStreams' | 'config'>>(
  async (app, { openStreams, config }) => {
    // The package's default export at runtime is its fastify-plugin wrapped function (so its onRoute
    // hook sees every route); its typings describe the CommonJS module object instead.
    await app.register(fastifySse as unknown as FastifyPluginAsync<SSEPluginOptions>, {
      heartbeatInterval: config.SSE_HEARTBEAT_MS,
    });

    // Node counts a socket that never sent a request (a browser's preconnect) as busy, so close()
    // would wait for its headers timeout; such sockets are cut once the streams have ended.
    const unusedSockets = new Set<Socket>();
    app.server.on('connection', (socket: Socket) => {
      unusedSockets.add(socket);
      socket.once('close', () => unusedSockets.delete(socket));
    });
    app.server.on('request', (request: IncomingMessage) => unusedSockets.delete(request.socket));

    app.addHook('preClose', async () => {
      await openStreams.closeAll({ code: 'SERVICE_UNAVAILABLE', message: 'gateway shutting down' });
      for (const socket of unusedSockets) socket.destroy();
    });
  },
  { name: 'munim-streams' },
);

/** Streams a request's events as SSE until its end, a timeout, the client leaving or shutdown. */
export async function streamEvents(
  ctx: Pick<GatewayContext, 'openStreams' | 'config'>,
  reply: FastifyReply,
  following: Following,
  /** What of the events goes out (see detail.ts). */
  view: StreamView = { detail: false, compact: false },
): Promise<void> {
  // The follow is stopped by relay(); a client that left before it started still frees it.
  await ctx.openStreams.track(async (shutdown) => {
    const gone = new AbortController();
    reply.sse.onClose(() => gone.abort(DISCONNECTED));
    // The client may have left while the query was being submitted, before onClose was set.
    if (!reply.sse.isConnected) gone.abort(DISCONNECTED);
    reply.sse.sendHeaders(200);
    reply.raw.flushHeaders();
    const coalesce = coalescer(reply);
    let ended: Awaited<ReturnType<typeof relay>>;
    try {
      ended = await relay({
        following,
        signal: AbortSignal.any([shutdown, gone.signal]),
        timeoutMs: ctx.config.STREAM_TIMEOUT_MS,
        idleTimeoutMs: ctx.config.STREAM_IDLE_TIMEOUT_MS,
        onEvent: async ({ seq, message }) => {
          if (!reply.sse.isConnected) return gone.abort(DISCONNECTED);
          coalesce.hold();
          await reply.sse.send({
            id: String(seq),
            event: message.data.type,
            data: forClient(message.data.type, message.data.payload, view),
          });
        },
      });
    } finally {
      coalesce.release();
    }
    // A gateway-side end has no id: the client's Last-Event-ID stays on the last real event.
    if (ended && reply.sse.isConnected) await reply.sse.send({ event: 'error', data: ended });
  });
}

/**
 * Holds a reply's writes until the end of the event loop's turn: the events that arrived together
 * (one stream message often carries several) leave in one socket write, not one each. `release`
 * lets them go at once (the stream is ending: the response must not end with them held).
 */
function coalescer(reply: FastifyReply): { hold(): void; release(): void } {
  let held: NodeJS.Immediate | undefined;
  const release = () => {
    if (!held) return;
    clearImmediate(held);
    held = undefined;
    reply.raw.uncork();
  };
  return {
    hold() {
      if (held) return;
      reply.raw.cork();
      held = setImmediate(release);
    },
    release,
  };
}
