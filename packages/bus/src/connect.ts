import { readFileSync } from 'node:fs';
import type { ServiceName } from '@munim/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  type Authenticator,
  credsAuthenticator,
  nkeyAuthenticator,
  type TlsOptions,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { Bus } from './bus.ts';
import type { BusLogger, StreamSettings } from './core.ts';
import { inboxPrefix, MIGRATE_USER, type NatsUserName } from './nats-permissions.ts';
import { ensureStreams } from './streams.ts';

/** How a service proves who it is to NATS (at most one way), and its TLS settings. */
export interface NatsAuth {
  /** A JWT + nkey `.creds` file; read again on every reconnect, so a rotated file is picked up. */
  credsFile?: string | undefined;
  /** A file holding an nkey seed (`SU…`); read again on every reconnect. */
  nkeySeedFile?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
  token?: string | undefined;
  /** CA and client certificate files; TLS is required when given (or when a server URL is `tls://`). */
  tls?:
    | { caFile?: string | undefined; certFile?: string | undefined; keyFile?: string | undefined }
    | undefined;
}

export interface ConnectBusOptions {
  /** Comma-separated NATS URLs. */
  servers: string;
  prefix: string;
  service: ServiceName;
  /** Connection name shown by the server's monitoring. */
  name?: string;
  log?: BusLogger;
  auth?: NatsAuth;
  /** How long the first connection may take (default 20 s). */
  connectTimeoutMs?: number;
  /** Replicas, storage and limits of the streams (`ensureStreams`) and durable consumers. */
  streams?: StreamSettings;
}

/** An nkey seed wherever it stands in the file (bare, or between armour lines). */
export const NKEY_SEED = /\bS[A-Z][A-Z2-7]{56}\b/;

function authenticator(auth: NatsAuth): Authenticator | undefined {
  if (auth.credsFile) {
    const file = auth.credsFile;
    return credsAuthenticator(() => readFileSync(file));
  }
  if (auth.nkeySeedFile) {
    const file = auth.nkeySeedFile;
    return nkeyAuthenticator(() => {
      const seed = NKEY_SEED.exec(readFileSync(file, 'utf8'))?.[0];
      if (!seed) throw new Error(`${file} holds no nkey seed`);
      return new TextEncoder().encode(seed);
    });
  }
  if (auth.user) return usernamePasswordAuthenticator(auth.user, auth.password);
  if (auth.token) return tokenAuthenticator(auth.token);
  return undefined;
}

function tlsOptions(auth: NatsAuth, servers: string[]): TlsOptions | undefined {
  const files = Object.fromEntries(Object.entries(auth.tls ?? {}).filter(([, v]) => v));
  // An empty object still makes the client insist on TLS (and check the server against the system CAs).
  if (Object.keys(files).length > 0 || servers.some((s) => /^tls:\/\//i.test(s))) return files;
  return undefined;
}

/** A NATS connection (reconnecting forever) of a service or of the migration job. */
async function connectNats(
  opts: Omit<ConnectBusOptions, 'service' | 'streams'> & { user: NatsUserName },
): Promise<Awaited<ReturnType<typeof connect>>> {
  const servers = opts.servers
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const auth = opts.auth ?? {};
  const tls = tlsOptions(auth, servers);
  const authn = authenticator(auth);
  let nc: Awaited<ReturnType<typeof connect>>;
  try {
    nc = await connect({
      servers,
      name: opts.name ?? opts.user,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      ...(opts.connectTimeoutMs ? { timeout: opts.connectTimeoutMs } : {}),
      // An Error (with its stack) per request and per JetStream publish costs more than the hop
      // itself; our own errors name the subject and the service instead.
      noAsyncTraces: true,
      // Replies (JetStream's included) come to a per-user inbox, the only one its user may read.
      inboxPrefix: inboxPrefix(opts.prefix, opts.user),
      ...(tls ? { tls } : {}),
      ...(authn ? { authenticator: authn } : {}),
    });
  } catch (error) {
    // Credentials in a URL (nats://user:pass@host) stay out of the message.
    const where = servers.map((s) => s.replace(/\/\/[^@/]*@/, '//')).join(', ');
    let reason = error instanceof Error ? error.message : String(error);
    // A server that requires client certificates drops the TLS session silently; nats.js then times out.
    if (tls && !tls.certFile && /timeout/i.test(reason))
      reason += ' (over TLS without a client certificate: does the server require one?)';
    throw new Error(`${opts.user} could not connect to NATS at ${where}: ${reason}`, { cause: error });
  }
  // A server going away is routine in a cluster, but worth a line: it explains a pause.
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect')
        opts.log?.warn(
          { server: status.server },
          `NATS ${status.type === 'disconnect' ? 'disconnected' : 'reconnected'}`,
        );
      else if (status.type === 'error' || status.type === 'slowConsumer')
        opts.log?.warn({ status }, `NATS ${status.type}`);
    }
  })().catch(() => undefined);
  return nc;
}

/** Connects to NATS (reconnecting forever) and returns the typed bus. */
export async function connectBus(opts: ConnectBusOptions): Promise<Bus> {
  const nc = await connectNats({ ...opts, user: opts.service });
  return Bus.create({
    nc,
    prefix: opts.prefix,
    service: opts.service,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.streams ? { streams: opts.streams } : {}),
  });
}

/** How the migration job reaches NATS, and the stream settings the services are given. */
export type MigrateStreamsOptions = Omit<ConnectBusOptions, 'service'>;

/**
 * The migration job's stream step: connects (its replies in the migrate user's inbox), creates or
 * updates munim's streams with `opts.streams`, and closes. The services' NATS users may only look.
 */
export async function migrateStreams(opts: MigrateStreamsOptions): Promise<void> {
  const nc = await connectNats({ ...opts, user: MIGRATE_USER });
  try {
    const jsm = await jetstreamManager(nc);
    await ensureStreams(
      { jsm, prefix: opts.prefix, who: 'the migration job', log: opts.log },
      opts.streams ?? {},
    );
  } finally {
    await nc.close();
  }
}
