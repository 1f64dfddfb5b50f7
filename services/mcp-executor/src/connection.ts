import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@munim/kit';
import { sanitizeMessage } from './errors.ts';
import { streamableHttp } from './http.ts';

/** Options of {@link McpConnection}. */
export interface McpConnectionOptions {
  /** Streamable HTTP endpoint of the MCP server (when no `transport` factory is given). */
  url?: string;
  /** Makes the transport of each new session (stdio, tenant URLs); default Streamable HTTP on `url`. */
  transport?: () => Transport;
  /** How the server is named in logs (default: the URL's origin). */
  label?: string;
  /** Bearer token; sent as `Authorization`, never logged. */
  authToken?: string | undefined;
  log: Logger;
  /** Reconnect backoff: first wait and cap, in ms. */
  backoff?: { initialMs: number; maxMs: number } | undefined;
  /** Bound on the `initialize` handshake. */
  connectTimeoutMs?: number;
  /** Liveness ping period while connected (0 disables), so health notices a dead server. */
  pingIntervalMs?: number | undefined;
  /** Called with each new session, before calls may use it. */
  onConnected?: (client: Client) => Promise<void>;
  /** Called when the server says its tool list changed. */
  onToolsChanged?: () => void;
}

const CLIENT_INFO = { name: 'munim-mcp-executor', version: '0.1.0' };

/** A session that lived shorter than this before it was lost counts as flapping. */
const STABLE_SESSION_MS = 30_000;

/** The session's transport closed without being asked to (a stdio server exited, a connection dropped). */
class McpTransportClosedError extends Error {
  override name = 'McpTransportClosedError';
}

/**
 * One MCP client session at a time, re-established with backoff whenever it is missing:
 * at start (the server may not be up yet), after a transport failure, and as soon as the
 * transport closes on its own (a stdio server that exited), not at the next call.
 */
export class McpConnection {
  readonly #opts: McpConnectionOptions;
  #client: Client | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;
  #abort = new AbortController();
  #waiters = new Set<() => void>();
  #pinger: NodeJS.Timeout | undefined;
  #establishedAt = 0;
  /** Sessions in a row lost within STABLE_SESSION_MS of being established. */
  #flaps = 0;

  constructor(opts: McpConnectionOptions) {
    this.#opts = opts;
  }

  get #secrets(): string[] {
    return this.#opts.authToken ? [this.#opts.authToken] : [];
  }

  /** Whether a session is established. */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** Starts connecting in the background; returns at once. */
  start(): void {
    this.#ensureLoop();
    const every = this.#opts.pingIntervalMs ?? 30_000;
    if (every > 0) {
      this.#pinger = setInterval(() => void this.#ping(), every);
      this.#pinger.unref();
    }
  }

  /** The current client, waiting up to `waitMs` for a session being (re)established. */
  async client(waitMs: number): Promise<Client | undefined> {
    if (this.#client || this.#stopped || waitMs <= 0) return this.#client;
    this.#ensureLoop();
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
      this.#waiters.add(resolve);
    });
    const timer = setTimeout(wake, waitMs);
    try {
      await woken;
    } finally {
      clearTimeout(timer);
      this.#waiters.delete(wake);
    }
    return this.#client;
  }

  /** Drops a session whose transport failed or closed; a new one is made at once (after a pause when flapping). */
  markBroken(client: Client, reason: unknown): void {
    if (client !== this.#client || this.#stopped) return;
    this.#client = undefined;
    const livedMs = Date.now() - this.#establishedAt;
    this.#flaps = livedMs < STABLE_SESSION_MS ? this.#flaps + 1 : 0;
    // A server that dies soon after every start must not be respawned in a tight loop.
    const { initialMs, maxMs } = this.#backoff;
    const holdMs = this.#flaps <= 1 ? 0 : Math.min(initialMs * 2 ** (this.#flaps - 2), maxMs);
    this.#opts.log.warn(
      { server: this.#label, reason: describe(reason, this.#secrets), livedMs, retryInMs: holdMs },
      'MCP session lost; reconnecting',
    );
    void client.close().catch(() => undefined);
    this.#ensureLoop(holdMs);
  }

  /** Closes the session and stops reconnecting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    clearInterval(this.#pinger);
    for (const wake of this.#waiters) wake();
    await this.#loop?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  get #backoff(): { initialMs: number; maxMs: number } {
    return this.#opts.backoff ?? { initialMs: 250, maxMs: 10_000 };
  }

  #ensureLoop(holdMs = 0): void {
    if (this.#loop || this.#stopped || this.#client) return;
    this.#loop = this.#connectLoop(holdMs).finally(() => {
      this.#loop = undefined;
    });
  }

  async #connectLoop(holdMs: number): Promise<void> {
    const { initialMs, maxMs } = this.#backoff;
    if (holdMs > 0) await sleep(holdMs, undefined, { signal: this.#abort.signal }).catch(() => undefined);
    let delay = initialMs;
    let attempt = 0;
    while (!this.#stopped) {
      attempt += 1;
      const client = new Client(CLIENT_INFO, { capabilities: {} });
      // Set before connecting: a close of a session not (yet) current is ignored by markBroken.
      client.onclose = () => this.markBroken(client, new McpTransportClosedError('the MCP transport closed'));
      try {
        await client.connect(this.#transport(), { timeout: this.#opts.connectTimeoutMs ?? 10_000 });
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () =>
          this.#opts.onToolsChanged?.(),
        );
        client.onerror = (error) =>
          this.#opts.log.debug({ reason: describe(error, this.#secrets) }, 'MCP transport error');
        await this.#opts.onConnected?.(client);
        if (this.#stopped) {
          await client.close().catch(() => undefined);
          return;
        }
        // The SDK drops the transport when it closes; one that closed during setup is no session.
        if (!client.transport) throw new McpTransportClosedError('the MCP transport closed during setup');
        this.#client = client;
        this.#establishedAt = Date.now();
        this.#opts.log.info({ server: this.#label, attempt }, 'MCP session established');
        for (const wake of this.#waiters) wake();
        return;
      } catch (error) {
        await client.close().catch(() => undefined);
        if (this.#stopped) return;
        this.#opts.log.warn(
          {
            server: this.#label,
            attempt,
            retryInMs: delay,
            reason: describe(error, this.#secrets),
          },
          'MCP server not reachable; retrying',
        );
        await sleep(delay, undefined, { signal: this.#abort.signal }).catch(() => undefined);
        delay = Math.min(delay * 2, maxMs);
      }
    }
  }

  get #label(): string {
    return this.#opts.label ?? origin(this.#opts.url ?? '');
  }

  #transport(): Transport {
    if (this.#opts.transport) return this.#opts.transport();
    return streamableHttp(new URL(this.#opts.url ?? ''), this.#opts.authToken);
  }

  async #ping(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    try {
      await client.ping({ timeout: 5_000 });
    } catch (error) {
      this.markBroken(client, error);
    }
  }
}

/** The server's origin only: the path or query of a URL may carry credentials. */
function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}

function describe(error: unknown, secrets: readonly string[]): string {
  if (!(error instanceof Error)) return sanitizeMessage(String(error), secrets, 'unknown error');
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = cause ? ` (${String(cause.code ?? cause.message ?? '')})` : '';
  return sanitizeMessage(`${error.name}: ${error.message}${detail}`, secrets, 'unknown error');
}
