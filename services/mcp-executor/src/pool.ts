import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestScope, ToolDefinition, ToolsChanged } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Logger } from '@munim/kit';
import { primaryToolGroup } from '@munim/kit';
import type { Kysely } from 'kysely';
import { McpConnection } from './connection.ts';
import { classifyFailure, sanitizeMessage } from './errors.ts';
import { MemoryPins, type PinStore, type PinVerdict } from './pins.ts';
import type { ToolPolicy } from './policy.ts';
import { type ListedTool, listAllTools, ToolRegistry, toDefinition } from './registry.ts';
import { diffTools, isEmptyDiff, syncToolRegistry } from './registry-store.ts';
import { createTransport, describeServer, type McpServerSpec, ServerSpecError } from './servers.ts';

/** Least time between registry refreshes caused by calls naming an unknown tool. */
const MISS_REFRESH_MS = 1_000;

/** Settings of a {@link ServerPool}. */
export interface ServerPoolOptions {
  /** Every MCP server, in order of precedence for tool names they share. */
  specs: readonly McpServerSpec[];
  log: Logger;
  policy: ToolPolicy;
  /** Bound on listing a server's tools. */
  listTimeoutMs: number;
  reconnectBackoff?: { initialMs: number; maxMs: number } | undefined;
  pingIntervalMs?: number | undefined;
  /** Most tenant sessions kept per server (least recently used closed first; default 100). */
  maxTenantSessions?: number | undefined;
  /** Where the registry is recorded for people and other services (`tool_registry`), if anywhere. */
  db?: Kysely<Database> | undefined;
  /** Told of every change of the combined registry. */
  onToolsChanged: (change: ToolsChanged) => void;
  /** Where each tool's trusted definition is kept (default: this process's memory). */
  pins?: PinStore | undefined;
}

/** Where an exposed tool is called for one tenant: on which session, under which name. */
export interface CallRoute {
  session: McpConnection;
  /** The tool's name on its own server. */
  name: string;
}

interface ServerEntry {
  spec: McpServerSpec;
  /** The server's own session: listing, notifications, and calls where no tenant session applies. */
  connection: McpConnection;
  /** Its tools under their own names, once listed (withheld ones included, for stable names). */
  tools: ToolDefinition[] | undefined;
  /** Its tools whose listed definition is not the pinned one, by their own names. */
  withheld: Map<string, PinVerdict>;
  /** Sessions whose URL carries a tenant's entityid/orgid, least recently used first. */
  tenants: Map<string, McpConnection>;
}

/**
 * The configured MCP servers: one own session each plus a session per tenant, and the registry of
 * all their tools together, reloaded when a server connects, says its list changed, or is asked to.
 */
export class ServerPool {
  /** The tools of every server, under the names calls use. */
  readonly registry = new ToolRegistry();
  /** Configured bearer tokens, to be kept out of every message. */
  readonly secrets: readonly string[];
  readonly #opts: ServerPoolOptions;
  readonly #entries: ServerEntry[];
  #routes = new Map<string, { entry: ServerEntry; name: string }>();
  /** Tools listed but not offered, under the names calls use. */
  #withheld = new Map<string, { server: string; name: string; verdict: PinVerdict }>();
  readonly #pins: PinStore;
  #refreshing: Promise<void> | undefined;
  /** The one reload after the one under way, shared by every ask made during it. */
  #queued: Promise<void> | undefined;
  #lastMissRefresh = 0;
  #stopped = false;

  constructor(opts: ServerPoolOptions) {
    if (opts.specs.length === 0) throw new ServerSpecError('no MCP server configured');
    for (const spec of opts.specs) {
      if (!spec.url && !spec.command)
        throw new ServerSpecError(`server ${spec.name} has neither url nor command`);
    }
    this.#opts = opts;
    this.#pins = opts.pins ?? new MemoryPins();
    this.secrets = opts.specs.flatMap((spec) => (spec.authToken ? [spec.authToken] : []));
    this.#entries = opts.specs.map((spec) => {
      const entry: ServerEntry = {
        spec,
        tools: undefined,
        withheld: new Map(),
        tenants: new Map(),
        connection: new McpConnection({
          transport: () => createTransport(spec),
          label: describeServer(spec),
          authToken: spec.authToken,
          log: opts.log,
          backoff: opts.reconnectBackoff,
          pingIntervalMs: opts.pingIntervalMs,
          onConnected: (client) => this.#load(entry, client, 'connected'),
          onToolsChanged: () => void this.refresh('list_changed'),
        }),
      };
      return entry;
    });
  }

  /** The own session of every configured server, in configuration order. */
  get connections(): McpConnection[] {
    return this.#entries.map((entry) => entry.connection);
  }

  /** Whether every server's own session is established. */
  get connected(): boolean {
    return this.#entries.every((entry) => entry.connection.connected);
  }

  /** Starts connecting to every server in the background. */
  start(): void {
    for (const entry of this.#entries) entry.connection.start();
  }

  /** Waits for a refresh under way, then closes every session for good. */
  async stop(): Promise<void> {
    await this.#refreshing?.catch(() => undefined);
    await this.#queued?.catch(() => undefined);
    this.#stopped = true;
    await Promise.allSettled(
      this.#entries.flatMap((entry) => [entry.connection, ...entry.tenants.values()].map((c) => c.stop())),
    );
  }

  /** A tool's definition; a name not listed triggers one refresh (at most every second) before giving up. */
  async lookup(tool: string): Promise<ToolDefinition | undefined> {
    let definition = this.registry.get(tool);
    if (!definition && Date.now() - this.#lastMissRefresh >= MISS_REFRESH_MS) {
      this.#lastMissRefresh = Date.now();
      await this.refresh('unknown tool requested');
      definition = this.registry.get(tool);
    }
    return definition;
  }

  /**
   * Why a tool the server lists is not offered, in words for the caller, or undefined when it is
   * offered or not listed at all.
   */
  withheld(tool: string): string | undefined {
    const found = this.#withheld.get(tool);
    if (!found) return undefined;
    const what = `The tool "${tool}" of the server "${found.server}" is withheld`;
    return found.verdict.state === 'refused'
      ? `${what}: an operator refused its changed definition. Nothing was sent.`
      : `${what}: its definition changed since it was pinned and awaits an operator's review. Nothing was sent.`;
  }

  /** Where this tenant's call of an exposed tool goes, if the tool is listed. */
  route(tool: string, scope: RequestScope): CallRoute | undefined {
    const route = this.#routes.get(tool);
    if (!route) return undefined;
    return { session: this.#sessionFor(route.entry, scope), name: route.name };
  }

  /**
   * Reloads every server's tools. Asks made during a reload share one more reload after it: the
   * one under way may have listed a server before what the ask is about (a list_changed notice,
   * an operator's decision on a changed tool).
   */
  refresh(reason: string): Promise<void> {
    if (this.#refreshing) {
      this.#queued ??= this.#refreshing
        .catch(() => undefined)
        .then(() => {
          this.#queued = undefined;
          return this.refresh(reason);
        });
      return this.#queued;
    }
    this.#refreshing = (async () => {
      for (const entry of this.#entries) {
        const client = await entry.connection.client(0);
        if (!client) continue;
        try {
          await this.#load(entry, client, reason);
        } catch (error) {
          this.#opts.log.warn(
            { server: entry.spec.name, reason, err: sanitizeMessage(String(error), this.secrets) },
            'tool registry refresh failed',
          );
          if (classifyFailure(error) === 'transport') entry.connection.markBroken(client, error);
        }
      }
    })().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** The session a call of this tenant uses on this server. */
  #sessionFor(entry: ServerEntry, scope: RequestScope): McpConnection {
    if (entry.spec.command || entry.spec.tenantParams === false || this.#stopped) return entry.connection;
    const key = `${scope.entityId}\u0000${scope.orgId}`;
    let session = entry.tenants.get(key);
    if (session) {
      // Re-inserted, so the map's order stays least-recently-used first.
      entry.tenants.delete(key);
      entry.tenants.set(key, session);
      return session;
    }
    session = new McpConnection({
      transport: () => createTransport(entry.spec, { entityId: scope.entityId, orgId: scope.orgId }),
      label: describeServer(entry.spec),
      authToken: entry.spec.authToken,
      log: this.#opts.log,
      backoff: this.#opts.reconnectBackoff,
      pingIntervalMs: 0,
      onToolsChanged: () => void this.refresh('list_changed'),
    });
    session.start();
    entry.tenants.set(key, session);
    const maxSessions = this.#opts.maxTenantSessions ?? 100;
    for (const [oldKey, old] of entry.tenants) {
      if (entry.tenants.size <= maxSessions) break;
      entry.tenants.delete(oldKey);
      void old.stop();
    }
    return session;
  }

  /**
   * The registry of every server together. A name listed by more than one server keeps its bare
   * form on the first server in configuration order; the others get `<server>__<name>`.
   */
  #combine(): ToolDefinition[] {
    const firstOwner = new Map<string, ServerEntry>();
    for (const entry of this.#entries) {
      for (const tool of entry.tools ?? []) if (!firstOwner.has(tool.name)) firstOwner.set(tool.name, entry);
    }
    const next = new Map<string, { entry: ServerEntry; name: string }>();
    const withheld = new Map<string, { server: string; name: string; verdict: PinVerdict }>();
    const definitions: ToolDefinition[] = [];
    for (const entry of this.#entries) {
      for (const tool of entry.tools ?? []) {
        const exposed = firstOwner.get(tool.name) === entry ? tool.name : `${entry.spec.name}__${tool.name}`;
        if (exposed.length > 128 || next.has(exposed)) {
          this.#opts.log.warn(
            { server: entry.spec.name, tool: tool.name },
            'tool left out: its name collides',
          );
          continue;
        }
        const verdict = entry.withheld.get(tool.name);
        if (verdict) {
          withheld.set(exposed, { server: entry.spec.name, name: tool.name, verdict });
          continue;
        }
        next.set(exposed, { entry, name: tool.name });
        definitions.push({ ...tool, name: exposed });
      }
    }
    this.#routes = next;
    this.#withheld = withheld;
    return definitions;
  }

  /** Logs what a listing did to the pins, and keeps the server's withheld tools. */
  #notePins(entry: ServerEntry, tools: readonly ToolDefinition[], verdicts: Map<string, PinVerdict>): void {
    const { log } = this.#opts;
    const server = entry.spec.name;
    const withheld = new Map<string, PinVerdict>();
    for (const tool of tools) {
      const verdict = verdicts.get(tool.name);
      if (verdict?.added) {
        log.info(
          {
            server,
            tool: tool.name,
            kind: tool.isWrite ? 'write' : 'read',
            reason: tool.access?.reason,
            detail: tool.access?.detail,
            hash: verdict.hash,
          },
          'tool added: classified and pinned',
        );
      }
      if (!verdict || verdict.state === 'pinned') continue;
      withheld.set(tool.name, verdict);
      const before = entry.withheld.get(tool.name);
      if (before?.state !== verdict.state || before.hash !== verdict.hash) {
        log.warn(
          { server, tool: tool.name, state: verdict.state, hash: verdict.hash },
          verdict.state === 'refused'
            ? 'tool withheld: an operator refused its listed definition'
            : 'tool withheld: its definition changed since it was pinned; awaiting review',
        );
      }
    }
    entry.withheld = withheld;
  }

  async #load(entry: ServerEntry, client: Client, reason: string): Promise<void> {
    const { log, policy, db } = this.#opts;
    const listed = await listAllTools(client, this.#opts.listTimeoutMs);
    const tools: ToolDefinition[] = [];
    const usable: ListedTool[] = [];
    const skipped: string[] = [];
    for (const item of listed) {
      // Classified by the server's own name: a prefix added on collision must not hide its verb.
      const definition = toDefinition(item, entry.spec.name, policy, log);
      if (definition) {
        tools.push(definition);
        usable.push(item);
      } else skipped.push(String(item.name));
    }
    if (skipped.length > 0) log.warn({ skipped }, 'tools with unusable definitions left out of the registry');
    // Pins are checked before anything is offered: when they cannot be, the registry stays as it was.
    // The store's error is not the server's: without its cause, it is never taken for a lost session.
    const verdicts = await this.#pins.record(entry.spec.name, usable).catch((error: unknown) => {
      throw new Error(
        `could not check the tool pins: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    this.#notePins(entry, tools, verdicts);
    entry.tools = tools;
    const before = this.registry.list();
    this.registry.replaceDefinitions(this.#combine());
    const after = this.registry.list();
    const diff = diffTools(before, after);
    log.info({ server: entry.spec.name, tools: after.length, reason, ...diff }, 'tool registry loaded');
    if (isEmptyDiff(diff)) return;
    if (db) {
      // The table is a record for people and other services; the executor serves from memory.
      // Grouped by the server's own name: a `<server>__` prefix must not place a tool in a group.
      const groupOf = (tool: ToolDefinition) =>
        primaryToolGroup(this.#routes.get(tool.name)?.name ?? tool.name);
      await syncToolRegistry(db, after, groupOf).catch((error: unknown) =>
        log.warn({ err: error }, 'could not store the tool registry'),
      );
    }
    this.#opts.onToolsChanged({ reason, ...diff, total: after.length });
  }
}
