import type { Attachments } from '@munim/attachments';
import type { Bus, RunningConsumer } from '@munim/bus';
import { healthChecks, lazyCounter, type Transcribe } from '@munim/kit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { watchApprovals } from './approvals.ts';
import { type HandlerDeps, handleMessage } from './inbound/handle.ts';
import { Outbox, type PhoneSender, type WindowTemplate } from './outbound/outbox.ts';
import type { MessagingStore } from './store.ts';
import { type WebhookAuth, webhookRoutes } from './webhook.ts';
import type { WhatsAppGraph } from './whatsapp/graph.ts';

const statuses = lazyCounter('munim.messaging.statuses', 'Statuses of sent WhatsApp messages recorded');

/** What the messaging service runs on. WhatsApp off: `channel` is undefined and the webhook answers 503. */
export interface MessagingDeps {
  bus: Bus;
  log: Logger;
  channel?:
    | {
        store: MessagingStore;
        /** The Cloud API: sends, media, webhook signature and handshake. */
        graph: PhoneSender & WebhookAuth & Pick<WhatsAppGraph, 'downloadMedia'>;
        verifyToken: string;
        template?: WindowTemplate | undefined;
        transcribe?: Transcribe | undefined;
        attachments?: Attachments | undefined;
      }
    | undefined;
  config: {
    answerTimeoutMs: number;
    concurrency: number;
    sttMaxBytes: number;
    attachmentMaxBytes: number;
  };
}

/**
 * The messaging service: the WhatsApp webhook, a consumer that answers each message once through
 * the same pipeline as the gateway, and a watcher that sends approvers their cards.
 */
export function buildMessaging(deps: MessagingDeps): {
  app: FastifyInstance;
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  const { bus, log, channel, config } = deps;
  const app = Fastify({ loggerInstance: log as FastifyBaseLogger });
  const checks = healthChecks(bus);
  webhookRoutes(app, { bus, auth: channel?.graph, verifyToken: channel?.verifyToken });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const results = await checks();
    const ready = Object.values(results).every(Boolean);
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ok' : 'unavailable', ...results, whatsapp: channel ? 'on' : 'off' });
  });

  const shutdown = new AbortController();
  const consumers: RunningConsumer[] = [];
  return {
    app,
    async start() {
      if (!channel) return;
      const outbox = new Outbox(channel.graph, log, channel.template);
      const handler: HandlerDeps = {
        bus,
        log,
        store: channel.store,
        outbox,
        media: channel.graph,
        transcribe: channel.transcribe,
        attachments: channel.attachments,
        config,
        signal: shutdown.signal,
      };
      consumers.push(
        await bus.consume(
          'messagingInbound',
          async (message) => {
            const item = message.data;
            if (item.type === 'message') return handleMessage(handler, item);
            await channel.store.recordStatus({
              messageId: item.messageId,
              status: item.status,
              recipient: item.recipient,
              at: new Date(item.at),
              error: item.error,
            });
            statuses().add(1, { 'munim.status': item.status });
          },
          {
            durable: 'messaging',
            concurrency: config.concurrency,
            // Long enough for a question's answer; the consumer keeps the message alive meanwhile.
            ackWaitMs: 30_000,
            maxDeliver: 5,
            reportMalformed: false,
            onGiveUp: async (_message, error) => {
              log.error({ err: error }, 'a WhatsApp message could not be answered');
            },
          },
        ),
        await watchApprovals({ bus, log, store: channel.store, outbox, concurrency: config.concurrency }),
      );
    },
    async stop() {
      shutdown.abort({ code: 'SERVICE_UNAVAILABLE', message: 'The messaging service is shutting down.' });
      await Promise.allSettled(consumers.map((c) => c.stop()));
      await app.close();
    },
  };
}
