import { catalog, STREAMS, type StreamKey, type StreamSubjectName } from '@munim/contracts';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { type BusCore, type BusLogger, type StreamSettings, streamNameOf } from './core.ts';
import {
  differs,
  isAlreadyMade,
  isPermissionDenied,
  isSubjectsOverlap,
  jsApi,
  orNotFound,
  STREAM_SETTLE_MS,
} from './js-api.ts';
import { POLL_WITHOUT_REPUBLISH_MS } from './live.ts';

/** Age limit of the EVENTS stream when none is configured: a week of replay. */
export const DEFAULT_EVENTS_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** How long a stream remembers message ids, so that a publish sent again is stored once. */
const DUPLICATE_WINDOW_MS = 120_000;

/** The settings of a durable consumer that `ensureConsumer` applies. */
export interface DurableOptions {
  /** Durable consumer name shared by every instance of the service. */
  durable: string;
  ackWaitMs?: number;
  /** Deliveries before giving up; -1 means never. */
  maxDeliver?: number;
  /** Messages delivered and not yet acked, across all instances (default 1000). */
  maxAckPending?: number;
  /** Where a durable created now starts: every stored message (default) or only new ones. */
  startAt?: 'all' | 'new';
}

/** What managing the streams needs: a service's bus, or the migration job's connection. */
export interface StreamsClient {
  jsm: JetStreamManager;
  prefix: string;
  /** Who is connected, named in errors: a service, or the migration job. */
  who: string;
  log?: BusLogger | undefined;
}

/** What a NATS user refused stream management is told to do. */
const RUN_MIGRATION =
  'run the migration job first (`npm run migrate`, or the image with SERVICE=migrate) with NATS_URL and the same NATS_STREAM_* settings, as the NATS user migrate';

/**
 * A stream this NATS user may not create or update: it is missing, or its settings differ from
 * this user's, and only the migration job manages streams.
 */
export class StreamsNotReadyError extends Error {
  override name = 'StreamsNotReadyError';
}

/**
 * Creates or updates munim's streams with `settings`; safe to call from every instance at start.
 * It looks first and changes only a stream that is missing or differs, so a service whose NATS
 * user may not manage streams starts on streams the migration job made, and stops with a
 * {@link StreamsNotReadyError} naming the stream when it would have to change one.
 * An existing stream is updated in place, its messages kept: replicas and limits change, storage
 * cannot (JetStream refuses), so a different storage is only reported. In a cluster a stream whose
 * replicas change elects a new leader: this waits for it, and a call that went unanswered
 * meanwhile is made again (bounded), so the next instance finds it settled.
 */
export async function ensureStreams(client: StreamsClient, settings: StreamSettings): Promise<void> {
  const { jsm, log } = client;
  const refused = (name: string, what: string, error: unknown) =>
    new StreamsNotReadyError(
      `stream ${name} ${what}, and the NATS user of ${client.who} may not create or update streams: ${RUN_MIGRATION}`,
      { cause: error },
    );
  const replicas = settings.replicas ?? 1;
  const storage = settings.storage === 'memory' ? StorageType.Memory : StorageType.File;
  for (const key of Object.keys(STREAMS) as StreamKey[]) {
    const def = STREAMS[key];
    const name = streamNameOf(client.prefix, key);
    const maxAgeMs = settings.maxAgeMs ?? (key === 'events' ? DEFAULT_EVENTS_MAX_AGE_MS : 0);
    const limits = {
      subjects: def.subjects.map((s) => `${client.prefix}.${s}`),
      // Two minutes of deduplication, or the whole age limit when that is shorter (JetStream refuses more).
      duplicate_window: Math.min(DUPLICATE_WINDOW_MS, maxAgeMs || DUPLICATE_WINDOW_MS) * 1_000_000,
      max_age: maxAgeMs * 1_000_000,
      max_bytes: settings.maxBytes ?? -1,
      // Full WORK refuses a new query (its client gets an error); full EVENTS forgets the oldest.
      discard: def.retention === 'workqueue' ? DiscardPolicy.New : DiscardPolicy.Old,
      num_replicas: replicas,
    };
    // Stored messages also go out live on core NATS (see STREAMS): what followers subscribe to.
    const republish =
      'republish' in def
        ? { src: `${client.prefix}.${def.republish.src}`, dest: `${client.prefix}.${def.republish.dest}` }
        : undefined;
    const existing = await jsApi(`stream info ${name}`, () => orNotFound(() => jsm.streams.info(name)));
    if (!existing) {
      const added = await jsApi(`stream create ${name}`, async () => {
        try {
          await jsm.streams.add({
            name,
            retention: def.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
            storage,
            ...limits,
            ...(republish ? { republish } : {}),
          });
          return true;
        } catch (error) {
          // Another instance created it first: it may have done so with other settings.
          if (isAlreadyMade(error)) return false;
          if (isPermissionDenied(error)) throw refused(name, 'is missing', error);
          throw error;
        }
      });
      if (added) continue;
    }
    const current = existing ?? (await jsApi(`stream info ${name}`, () => jsm.streams.info(name)));
    if (current.config.storage !== storage) {
      log?.warn(
        { stream: name, storage: current.config.storage, wanted: storage },
        'stream keeps its storage: JetStream cannot change it in place (delete the stream to change it)',
      );
    }
    if (republish) await ensureRepublish(client, name, current.config, republish);
    if (!differs(current.config, limits)) {
      // Another instance changed it: its copies may still be being made.
      if (replicas > 1) await awaitCopies(client, name, replicas);
      continue;
    }
    // Read again before each try: another instance (or a try that went unanswered) may have
    // made the change already.
    await jsApi(
      `stream update ${name}`,
      async () => {
        const now = await jsm.streams.info(name);
        if (!differs(now.config, limits)) return;
        try {
          await jsm.streams.update(name, limits);
        } catch (error) {
          if (isPermissionDenied(error)) throw refused(name, differences(now.config, limits), error);
          throw error;
        }
      },
      STREAM_SETTLE_MS,
      isSubjectsOverlap,
    );
    if (current.config.num_replicas !== replicas) {
      log?.info({ stream: name, from: current.config.num_replicas, to: replicas }, 'stream replicas changed');
      await awaitStreamLeader(client, name);
    }
    if (replicas > 1) await awaitCopies(client, name, replicas);
  }
}

/**
 * Gives an existing stream its republish setting. Never fatal: a follow hears nothing live
 * without it, and then reads the stream every {@link POLL_WITHOUT_REPUBLISH_MS} instead (see
 * follow.ts), so a stream this user may not change, or a nats-server older than 2.9.12 (which
 * cannot add it to a stream in place), is reported and the service starts.
 */
async function ensureRepublish(
  client: StreamsClient,
  name: string,
  config: { republish?: { src: string; dest: string } | undefined },
  wanted: { src: string; dest: string },
): Promise<void> {
  if (config.republish?.src === wanted.src && config.republish.dest === wanted.dest) return;
  try {
    await jsApi(`stream update ${name}`, () => client.jsm.streams.update(name, { republish: wanted }));
    client.log?.info({ stream: name, republish: wanted }, 'stream now republishes what it stores');
  } catch (error) {
    const why = isPermissionDenied(error)
      ? `the NATS user of ${client.who} may not update streams: ${RUN_MIGRATION}`
      : /republish/i.test(String((error as Error).message))
        ? 'this nats-server cannot add it to an existing stream: upgrade it to 2.10 or later'
        : String((error as Error).message);
    client.log?.warn(
      { stream: name, err: error },
      `stream ${name} does not republish what it stores (${why}); following requests reads the stream every ${POLL_WITHOUT_REPUBLISH_MS} ms instead of listening`,
    );
  }
}

/** How a stream's stored settings differ from the wanted ones, e.g. `has num_replicas 1, not 3`. */
function differences(config: object, wanted: Record<string, unknown>): string {
  const current = config as Record<string, unknown>;
  const fields = Object.entries(wanted)
    .filter(([key, value]) => JSON.stringify(current[key]) !== JSON.stringify(value))
    .map(([key, value]) => `${key} ${JSON.stringify(current[key])}, not ${JSON.stringify(value)}`);
  return `has ${fields.join('; ')}`;
}

/** Waits (bounded) until a clustered stream has a leader again, e.g. after its replicas changed. */
async function awaitStreamLeader(
  client: StreamsClient,
  name: string,
  timeoutMs = STREAM_SETTLE_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await client.jsm.streams.info(name).catch(() => undefined);
    if (info && (!info.cluster || info.cluster.leader)) return;
    if (Date.now() > deadline) throw new Error(`stream ${name} has no leader after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** How long a stream or consumer whose replicas changed may take to have its copies placed. */
const COPIES_SETTLE_MS = 15_000;

/**
 * Waits (bounded) until a clustered stream, or one of its consumers, has a leader and its other
 * copies placed (a copy on a server that is down counts: it catches up when the server is back).
 * Resolves false when they are still missing at the deadline.
 */
async function awaitCopies(
  bus: Pick<StreamsClient, 'jsm'>,
  stream: string,
  replicas: number,
  consumer?: string,
  timeoutMs = COPIES_SETTLE_MS,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await (consumer
      ? bus.jsm.consumers.info(stream, consumer)
      : bus.jsm.streams.info(stream)
    ).catch(() => undefined);
    const cluster = info?.cluster;
    if (!cluster || (cluster.leader && (cluster.replicas?.length ?? 0) >= replicas - 1)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Makes sure the durable consumer of a stream subject exists with these settings (creating or
 * updating it; safe from every instance at once), and returns its stream's name.
 */
export async function ensureDurable(
  bus: BusCore,
  name: StreamSubjectName,
  opts: DurableOptions,
): Promise<string> {
  const { jsm } = bus;
  const def = catalog[name];
  const stream = bus.streamName(def.stream);
  const config = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: opts.startAt === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
    filter_subject: `${bus.prefix}.${def.subject.replace(/\{\w+\}/g, '*').replace(/\.\*$/, '.>')}`,
    ack_wait: (opts.ackWaitMs ?? 30_000) * 1_000_000,
    max_deliver: opts.maxDeliver ?? 5,
    max_ack_pending: opts.maxAckPending ?? 1000,
    // As many copies as the stream, so a durable survives the servers its stream survives.
    num_replicas: bus.streams.replicas ?? 1,
  };
  const update = {
    ack_wait: config.ack_wait,
    max_deliver: config.max_deliver,
    max_ack_pending: config.max_ack_pending,
    num_replicas: config.num_replicas,
  };
  const what = `consumer ${opts.durable} of ${stream}`;
  const existing = await jsApi(`${what}: info`, () =>
    orNotFound(() => jsm.consumers.info(stream, opts.durable)),
  );
  if (!existing) {
    const added = await jsApi(`${what}: create`, async () => {
      try {
        await jsm.consumers.add(stream, config);
        return true;
      } catch (error) {
        if (isAlreadyMade(error)) return false;
        throw error;
      }
    });
    if (added) return stream;
  }
  const current = existing ?? (await jsApi(`${what}: info`, () => jsm.consumers.info(stream, opts.durable)));
  if (differs(current.config, update))
    await jsApi(`${what}: update`, async () => {
      // Read again before each try: another instance (or an unanswered try) may have done it.
      const now = await jsm.consumers.info(stream, opts.durable);
      if (differs(now.config, update)) await jsm.consumers.update(stream, opts.durable, update);
    });
  const replicas = config.num_replicas;
  if (replicas > 1 && !(await awaitCopies(bus, stream, replicas, opts.durable))) {
    // nats-server 2.9 can take a consumer's new replica count, changed while its stream's copies
    // were being made, without placing the copies: it would live on one server. Made again.
    bus.log?.warn(
      { stream, consumer: opts.durable, replicas },
      'consumer copies missing; placing them again',
    );
    await jsApi(`${what}: scale down`, () =>
      jsm.consumers.update(stream, opts.durable, { ...update, num_replicas: 1 }),
    );
    await jsApi(`${what}: scale up`, () => jsm.consumers.update(stream, opts.durable, update));
    if (!(await awaitCopies(bus, stream, replicas, opts.durable)))
      bus.log?.error({ stream, consumer: opts.durable, replicas }, 'consumer copies still missing');
  }
  return stream;
}
