import type { Bus } from '@munim/bus';
import { SYSTEM_SCOPE } from '@munim/contracts';
import { lazyCounter } from '@munim/kit';
import type { FastifyInstance } from 'fastify';
import { DeliveryShapeError, readDelivery } from './inbound/deliveries.ts';

/** Where Meta posts deliveries and checks the webhook (the contract's path). */
export const WEBHOOK_PATH = '/v1/channels/whatsapp/webhook';

/** Largest delivery accepted: Meta batches at most a few hundred small objects. */
const MAX_DELIVERY_BYTES = 1024 * 1024;

const received = lazyCounter('munim.messaging.received', 'Messages and statuses received from WhatsApp');
const refused = lazyCounter(
  'munim.messaging.webhook_refused',
  'Webhook calls refused (bad signature, shape)',
);

/** How a delivery is authenticated and the handshake answered (the Cloud API client). */
export interface WebhookAuth {
  verifySignature(rawBody: string, header: string | undefined): Promise<boolean>;
  verifyHandshake(params: Record<string, string | undefined>, verifyToken: string): string | null;
}

const problem = (code: string, message: string) => ({ error: { code, message } });

/**
 * The WhatsApp webhook: `GET` answers the verification handshake; `POST` takes a delivery signed
 * with `X-Hub-Signature-256` over its raw body (anything else: `401`, nothing happens), puts each
 * message and status on the bus — the channel's message id is the dedupe id, so a delivery posted
 * twice, to any instance, is stored once — and answers at once; the work goes on through NATS.
 */
export function webhookRoutes(
  app: FastifyInstance,
  deps: { bus: Bus; auth: WebhookAuth | undefined; verifyToken: string | undefined },
): void {
  const { bus, auth } = deps;
  // The signature covers the raw bytes: every body is kept as sent, and read only once it checks out.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: MAX_DELIVERY_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.get(WEBHOOK_PATH, async (request, reply) => {
    if (!auth || !deps.verifyToken)
      return reply
        .code(503)
        .send(problem('SERVICE_UNAVAILABLE', 'WhatsApp is not configured on this server.'));
    const challenge = auth.verifyHandshake(
      request.query as Record<string, string | undefined>,
      deps.verifyToken,
    );
    if (challenge === null) {
      refused().add(1, { 'munim.reason': 'handshake' });
      return reply
        .code(403)
        .send(problem('FORBIDDEN', 'hub.verify_token does not match, or hub.mode is not subscribe.'));
    }
    return reply.type('text/plain').send(challenge);
  });

  app.post(WEBHOOK_PATH, async (request, reply) => {
    if (!auth)
      return reply
        .code(503)
        .send(problem('SERVICE_UNAVAILABLE', 'WhatsApp is not configured on this server.'));
    const raw = typeof request.body === 'string' ? request.body : '';
    const header = request.headers['x-hub-signature-256'];
    if (!(await auth.verifySignature(raw, typeof header === 'string' ? header : undefined))) {
      refused().add(1, { 'munim.reason': 'signature' });
      request.log.warn({}, 'webhook delivery refused: missing or wrong X-Hub-Signature-256');
      return reply
        .code(401)
        .send(problem('UNAUTHORIZED', 'X-Hub-Signature-256 is missing or does not match the body.'));
    }
    let items: ReturnType<typeof readDelivery>;
    try {
      items = readDelivery(JSON.parse(raw));
    } catch (error) {
      const message =
        error instanceof DeliveryShapeError ? error.message : 'body: not JSON (a WhatsApp delivery is JSON)';
      refused().add(1, { 'munim.reason': 'shape' });
      request.log.warn({ detail: message }, 'signed webhook delivery not read');
      return reply.code(400).send(problem('BAD_REQUEST', message));
    }
    for (const item of items) {
      await bus.publish('messagingInbound', SYSTEM_SCOPE, item, {
        msgID: item.type === 'message' ? `wa:${item.messageId}` : `wa:${item.messageId}:${item.status}`,
      });
      received().add(1, { 'munim.kind': item.type === 'message' ? item.content.kind : 'status' });
    }
    return reply.code(200).send({ received: items.length });
  });
}
