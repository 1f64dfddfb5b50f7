import {
  type BroadcastSubjectName,
  catalog,
  type RequestSubjectName,
  type ServiceName,
  STREAMS,
  type StreamKey,
  type StreamSubjectName,
  type SubjectName,
} from '@munim/contracts';

/** What one service does on the bus; its NATS permissions are derived from this, never written by hand. */
export interface BusRole {
  /** Stream subjects it publishes, besides request events, which every service emits. */
  publishes?: StreamSubjectName[];
  requests?: RequestSubjectName[];
  serves?: RequestSubjectName[];
  broadcasts?: BroadcastSubjectName[];
  listens?: BroadcastSubjectName[];
  /** Durable consumers it pulls from (the names the services pass to `consume`/`ensureConsumer`). */
  consumes?: { subject: StreamSubjectName; durable: string }[];
  /** Follows single requests (`Bus.follow`): listens to the events stream's republished messages, reads missed ones from it. */
  follows?: boolean;
  /** Reads a request's last stored event (`Bus.lastEvent`): a message get on the events stream. */
  readsLast?: boolean;
}

/** Who does what on the bus; every service also serves its own health ping and emits request events. */
export const BUS_ROLES: Record<ServiceName, BusRole> = {
  gateway: {
    publishes: ['querySubmitted'],
    requests: ['toolsList', 'healthPing'],
    broadcasts: ['intentsChanged', 'llmConfigChanged', 'toolPinChanged'],
    follows: true,
    readsLast: true,
  },
  router: {
    publishes: ['queryRouted'],
    requests: ['toolsList'],
    listens: ['intentsChanged'],
    consumes: [
      { subject: 'querySubmitted', durable: 'router' },
      // Only how each request ended: one message a request (see `requestEnded`).
      { subject: 'requestEnded', durable: 'router-outcomes' },
    ],
  },
  agent: {
    requests: ['toolValidate', 'toolExecute', 'toolsList', 'toolsContainers', 'answerBlocks'],
    listens: ['llmConfigChanged'],
    consumes: [{ subject: 'queryRouted', durable: 'agent' }],
    // Whether a redelivered request had ended already.
    readsLast: true,
  },
  validator: {
    serves: ['toolValidate', 'toolsContainers', 'answerBlocks'],
    requests: ['toolsList'],
    listens: ['toolsChanged'],
  },
  'mcp-executor': {
    serves: ['toolExecute', 'toolsList'],
    broadcasts: ['toolsChanged'],
    listens: ['toolPinChanged'],
  },
  logger: { consumes: [{ subject: 'requestEvents', durable: 'logger' }] },
  messaging: {
    publishes: ['messagingInbound', 'querySubmitted'],
    requests: ['healthPing'],
    consumes: [
      { subject: 'messagingInbound', durable: 'messaging' },
      // Writes waiting for approval, whichever channel asked: approvers with a phone get the card.
      { subject: 'requestEvents', durable: 'messaging-approvals' },
    ],
    follows: true,
  },
};

/**
 * The NATS user of the migration job (`npm run migrate`, the image's SERVICE=migrate): the only one
 * that creates and updates munim's streams.
 */
export const MIGRATE_USER = 'migrate';

/** Who logs in to NATS: a service, or the migration job. */
export type NatsUserName = ServiceName | typeof MIGRATE_USER;

/** Allowed subjects of one NATS user, and how long its replies to requests it received may take. */
export interface NatsPermissions {
  publish: string[];
  /** Exceptions to `publish` (NATS applies deny over allow). */
  publishDeny: string[];
  subscribe: string[];
  /** NATS `allow_responses`: one reply to each request received, within this many ms (none when absent). */
  responses?: { max: number; expiresMs: number };
}

/** Longest a served request may take to answer (the agent's execute timeout is 70 s). */
const RESPONSE_WINDOW_MS = 10 * 60_000;

/** The inbox prefix `connectBus` gives a service's connection, so a user reads only its own replies. */
export const inboxPrefix = (prefix: string, user: NatsUserName) => `_INBOX.${prefix}.${user}`;

/** Same formula as `Bus.streamName`. */
const streamName = (prefix: string, key: StreamKey) =>
  `${prefix.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}_${STREAMS[key].name}`;

/** A catalog subject with its `{param}` segments filled from `params`, or `*` where not given. */
function pattern(prefix: string, name: SubjectName, params: Record<string, string> = {}): string {
  return `${prefix}.${catalog[name].subject.replace(/\{(\w+)\}/g, (_, p: string) => params[p] ?? '*')}`;
}

/** The stream management calls denied to every service. */
const STREAM_ADMIN = ['CREATE', 'UPDATE', 'DELETE', 'PURGE'];

/** The publish/subscribe allow-lists of one service's NATS user, derived from {@link BUS_ROLES}. */
export function busPermissions(service: ServiceName, prefix: string): NatsPermissions {
  const role = BUS_ROLES[service];
  const api = '$JS.API';
  const streams = (Object.keys(STREAMS) as StreamKey[]).map((key) => streamName(prefix, key));
  const publish = [
    // Bus.create checks JetStream; every instance checks the streams at start (ensureStreams).
    `${api}.INFO`,
    ...streams.map((s) => `${api}.STREAM.INFO.${s}`),
    pattern(prefix, 'requestEvents'),
    pattern(prefix, 'requestEnded'),
    ...(role.publishes ?? []).map((name) => pattern(prefix, name)),
    ...(role.requests ?? []).map((name) => pattern(prefix, name)),
    ...(role.broadcasts ?? []).map((name) => pattern(prefix, name)),
  ];
  for (const { subject, durable } of role.consumes ?? []) {
    const s = streamName(prefix, catalog[subject].stream);
    publish.push(
      `${api}.CONSUMER.INFO.${s}.${durable}`,
      // Created and updated with its filter subject in the API subject (nats-server ≥ 2.9).
      `${api}.CONSUMER.CREATE.${s}.${durable}`,
      `${api}.CONSUMER.CREATE.${s}.${durable}.>`,
      `${api}.CONSUMER.MSG.NEXT.${s}.${durable}`,
      // Acks, naks and in-progress notices.
      `$JS.ACK.${s}.${durable}.>`,
    );
  }
  // Only the migration job makes, changes or empties streams (MIGRATE_USER); denied outright, so
  // no allow added later can grant it.
  const publishDeny = STREAM_ADMIN.map((op) => `${api}.STREAM.${op}.>`);
  // A follow listens to what the events stream republishes and reads missed events from it; it
  // makes no consumer.
  if (role.readsLast || role.follows) publish.push(`${api}.STREAM.MSG.GET.${streamName(prefix, 'events')}`);
  const subscribe = [
    `${inboxPrefix(prefix, service)}.>`,
    pattern(prefix, 'healthPing', { service }),
    ...(role.serves ?? []).map((name) => pattern(prefix, name)),
    ...(role.listens ?? []).map((name) => pattern(prefix, name)),
    ...(role.follows ? [`${prefix}.${STREAMS.events.republish.dest}`] : []),
  ];
  return {
    publish: [...new Set(publish)],
    publishDeny: [...new Set(publishDeny)],
    subscribe: [...new Set(subscribe)],
    responses: { max: 1, expiresMs: RESPONSE_WINDOW_MS },
  };
}

/**
 * The migration job's NATS user: it may look up, create and update munim's streams (not delete or
 * purge them), and read its own replies.
 */
export function migratePermissions(prefix: string): NatsPermissions {
  const api = '$JS.API';
  const streams = (Object.keys(STREAMS) as StreamKey[]).map((key) => streamName(prefix, key));
  return {
    publish: [
      `${api}.INFO`,
      ...streams.flatMap((s) => [
        `${api}.STREAM.INFO.${s}`,
        `${api}.STREAM.CREATE.${s}`,
        `${api}.STREAM.UPDATE.${s}`,
      ]),
    ],
    publishDeny: [],
    subscribe: [`${inboxPrefix(prefix, MIGRATE_USER)}.>`],
  };
}

/** The permissions of any NATS user of munim. */
export const natsPermissions = (user: NatsUserName, prefix: string): NatsPermissions =>
  user === MIGRATE_USER ? migratePermissions(prefix) : busPermissions(user, prefix);
