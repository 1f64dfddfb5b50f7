import { basename } from 'node:path';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { streamableHttp } from './http.ts';

/** One MCP server the executor talks to. */
export interface McpServerSpec {
  /** Short name: the prefix of its tool names when another server lists the same name. */
  name: string;
  /** Streamable HTTP endpoint; absent for a stdio server. */
  url?: string | undefined;
  /** Command of a stdio server, and its arguments. */
  command?: string | undefined;
  args?: string[] | undefined;
  /** Extra environment of a stdio server. */
  env?: Record<string, string> | undefined;
  /** Bearer token of an HTTP server; never logged. */
  authToken?: string | undefined;
  /**
   * HTTP only: calls go out on a session whose URL carries the tenant's `entityid` and `orgid`
   * query parameters, so the server serves that tenant alone. Default true.
   */
  tenantParams?: boolean | undefined;
}

/** The MCP_SERVERS setting is malformed; the message says how. */
export class ServerSpecError extends Error {
  override name = 'ServerSpecError';
}

const NAME = /^[A-Za-z0-9_-]{1,32}$/;

const ObjectSpec = z.strictObject({
  name: z.string().regex(NAME, 'letters, digits, _ and - only (at most 32)').optional(),
  url: z.url({ protocol: /^https?$/ }).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  authToken: z.string().optional(),
  tenantParams: z.boolean().optional(),
});

function defaultName(spec: {
  url?: string | undefined;
  command?: string | undefined;
  args?: string[] | undefined;
}) {
  let raw: string;
  if (spec.url) raw = new URL(spec.url).hostname.split('.')[0] ?? 'mcp';
  else {
    // `npx -y @scope/server-x` names itself after the package, not after npx.
    const last = [spec.command ?? '', ...(spec.args ?? [])].filter((a) => !a.startsWith('-')).pop() ?? 'mcp';
    raw = basename(last).replace(/\.[cm]?[jt]s$/, '');
  }
  return raw.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 32) || 'mcp';
}

/** `stdio:command arg …` or an http(s) URL, as written in a comma list. */
function fromString(text: string): Omit<McpServerSpec, 'name'> {
  const value = text.trim();
  if (value.startsWith('stdio:')) {
    const [command, ...args] = value.slice('stdio:'.length).trim().split(/\s+/);
    if (!command) throw new ServerSpecError(`"${value}": a stdio server needs a command`);
    return { command, args };
  }
  const parsed = z.url({ protocol: /^https?$/ }).safeParse(value);
  if (!parsed.success) throw new ServerSpecError(`"${value}" is neither an http(s) URL nor stdio:<command>`);
  return { url: parsed.data };
}

/**
 * Parses MCP_SERVERS: a JSON list (of URL / `stdio:` strings or objects with `name`, `url` or
 * `command`/`args`/`env`, `authToken`, `tenantParams`) or a comma list of URL / `stdio:` strings.
 * Names default from the host or command and are made unique with a number.
 */
export function parseServerList(
  text: string,
  defaults: { authToken?: string | undefined } = {},
): McpServerSpec[] {
  const trimmed = text.trim();
  let entries: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      entries = JSON.parse(trimmed) as unknown[];
    } catch (error) {
      throw new ServerSpecError('is not valid JSON', { cause: error });
    }
    if (!Array.isArray(entries)) throw new ServerSpecError('must be a JSON list');
  } else {
    entries = trimmed.split(',').filter((part) => part.trim() !== '');
  }
  if (entries.length === 0) throw new ServerSpecError('names no server');
  const used = new Set<string>();
  return entries.map((entry, index) => {
    let spec: Omit<McpServerSpec, 'name'> & { name?: string | undefined };
    if (typeof entry === 'string') spec = fromString(entry);
    else {
      const parsed = ObjectSpec.safeParse(entry);
      if (!parsed.success) {
        throw new ServerSpecError(
          `entry ${index + 1}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'} ${i.message}`).join('; ')}`,
        );
      }
      spec = parsed.data;
      if (spec.url && spec.command)
        throw new ServerSpecError(`entry ${index + 1}: give url or command, not both`);
      if (!spec.url && !spec.command) throw new ServerSpecError(`entry ${index + 1}: needs url or command`);
    }
    let name = spec.name ?? defaultName(spec);
    if (used.has(name)) {
      if (spec.name) throw new ServerSpecError(`entry ${index + 1}: the name ${name} is used twice`);
      let n = 2;
      while (used.has(`${name}${n}`)) n += 1;
      name = `${name}${n}`;
    }
    used.add(name);
    const authToken = spec.authToken ?? (spec.url ? defaults.authToken : undefined);
    return { ...spec, name, ...(authToken ? { authToken } : {}) };
  });
}

/** Tenant of a call, for servers that take it in the URL. */
export interface Tenant {
  entityId: string;
  orgId: string;
}

/** Locale, time zone and temp folder: harmless, and what a program needs to behave as on the host. */
const SAFE_EXTRA = ['LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR'];

/**
 * A stdio server's environment: the MCP SDK's safe set (HOME, PATH, USER, …), locale, time zone
 * and temp folder, and the variables its entry names — never the executor's own (`DATABASE_URL`,
 * NATS credentials, model keys).
 */
export function stdioEnvironment(own: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = getDefaultEnvironment();
  for (const key of SAFE_EXTRA) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...own };
}

/** A new transport to the server (each session needs its own). */
export function createTransport(spec: McpServerSpec, tenant?: Tenant): Transport {
  if (spec.command) {
    return new StdioClientTransport({
      command: spec.command,
      args: spec.args ?? [],
      env: stdioEnvironment(spec.env),
      // The server's own logging is not ours to print.
      stderr: 'ignore',
    });
  }
  if (!spec.url) throw new ServerSpecError(`server ${spec.name} has neither url nor command`);
  const url = new URL(spec.url);
  if (tenant) {
    url.searchParams.set('entityid', tenant.entityId);
    url.searchParams.set('orgid', tenant.orgId);
  }
  return streamableHttp(url, spec.authToken);
}

/** How a server is named in logs: its name and origin or command, never a path, query or token. */
export function describeServer(spec: McpServerSpec): string {
  if (spec.command) return `${spec.name} (stdio ${basename(spec.command)})`;
  try {
    return `${spec.name} (${new URL(spec.url ?? '').origin})`;
  } catch {
    return spec.name;
  }
}
