import { createAttachments } from '@munim/attachments';
import { connectBus } from '@munim/bus';
import { assertServiceLogin, createDb } from '@munim/db';
import {
  createSpeechToText,
  natsAuthFromEnv,
  runMain,
  serveHealth,
  stopService,
  streamSettingsFromEnv,
} from '@munim/kit';
import { buildMessaging } from './app.ts';
import { loadEnv, WHATSAPP_REQUIRED, whatsAppOn } from './env.ts';
import { MessagingStore } from './store.ts';
import { WhatsAppGraph } from './whatsapp/graph.ts';

runMain('messaging', async (log) => {
  const env = loadEnv();
  const bus = await connectBus({
    servers: env.NATS_URL,
    prefix: env.NATS_PREFIX,
    service: 'messaging',
    log,
    auth: natsAuthFromEnv(env),
    streams: streamSettingsFromEnv(env),
  });
  await bus.ensureStreams();
  const on = whatsAppOn(env);
  // A login given is checked even with WhatsApp off: a superuser one stops the service at once.
  const db = env.DATABASE_URL
    ? createDb(env.DATABASE_URL, { max: 5, log, preparedStatements: env.DB_PREPARED_STATEMENTS === 'on' })
    : undefined;
  if (db) await assertServiceLogin(db);
  const sttUrl = env.STT_BASE_URL ?? env.OPENAI_BASE_URL;
  const messaging = buildMessaging({
    bus,
    log,
    channel:
      on && db
        ? {
            store: new MessagingStore(db),
            graph: new WhatsAppGraph({
              graphUrl: env.WHATSAPP_GRAPH_URL,
              accessToken: env.WHATSAPP_ACCESS_TOKEN as string,
              phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID as string,
              appSecret: env.WHATSAPP_APP_SECRET as string,
              apiVersion: env.WHATSAPP_API_VERSION,
              log,
            }),
            verifyToken: env.WHATSAPP_VERIFY_TOKEN as string,
            template: env.WHATSAPP_TEMPLATE_NAME
              ? { name: env.WHATSAPP_TEMPLATE_NAME, language: env.WHATSAPP_TEMPLATE_LANGUAGE }
              : undefined,
            transcribe: sttUrl
              ? createSpeechToText({
                  baseURL: sttUrl,
                  apiKey: env.STT_API_KEY ?? env.OPENAI_API_KEY,
                  model: env.STT_MODEL,
                })
              : undefined,
            attachments: createAttachments(db, env),
          }
        : undefined,
    config: {
      answerTimeoutMs: env.MESSAGING_ANSWER_TIMEOUT_MS,
      concurrency: env.MESSAGING_CONCURRENCY,
      sttMaxBytes: env.STT_MAX_BYTES,
      attachmentMaxBytes: env.ATTACHMENTS_MAX_BYTES,
    },
  });
  await messaging.start();
  const url = await messaging.app.listen({ port: env.MESSAGING_PORT, host: env.MESSAGING_HOST });
  const health = serveHealth(bus);
  if (on) log.info({ url, graph: env.WHATSAPP_GRAPH_URL }, 'messaging listening: WhatsApp on');
  else
    log.info(
      { url, needs: WHATSAPP_REQUIRED },
      'messaging listening: WhatsApp off (set the WHATSAPP_* settings to connect a number)',
    );
  log.info({}, 'ready');
  return {
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: stopService([health, messaging], bus, db),
  };
});
