import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

type Address = ReturnType<typeof ipaddr.parse>;

/** Hosts and address ranges an outbound endpoint may use although they are not public. */
export interface EndpointAllowlist {
  /** Host names (lower case, no trailing dot), allowed whatever they resolve to. */
  hosts: ReadonlySet<string>;
  /** Address ranges (a single address is a full-length range). */
  ranges: readonly [Address, number][];
}

/** Nothing allowed beyond public unicast addresses. */
export const EMPTY_ALLOWLIST: EndpointAllowlist = { hosts: new Set(), ranges: [] };

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?)*$/;

/** A host as the URL parser gives it: lower case, without IPv6 brackets or a trailing dot. */
const normalHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/**
 * An allow-list variable (e.g. `LLM_ENDPOINT_ALLOWLIST`): comma-separated host names, addresses and
 * CIDR ranges. A bad entry is named by its position.
 */
export const EndpointAllowlistSchema = z.string().transform((value, ctx): EndpointAllowlist => {
  const hosts = new Set<string>();
  const ranges: [Address, number][] = [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const [index, entry] of entries.entries()) {
    const host = normalHost(entry);
    if (ipaddr.isValidCIDR(host)) ranges.push(ipaddr.parseCIDR(host));
    else if (ipaddr.isValid(host)) {
      const address = ipaddr.process(host);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST_NAME.test(host)) hosts.add(host);
    else
      ctx.addIssue({
        code: 'custom',
        message: `entry ${index + 1} is not a host name, address or CIDR range`,
      });
  }
  return { hosts, ranges };
});

/** Resolves a host name to every address it has. */
export type Resolver = (host: string) => Promise<string[]>;

/** The system resolver (`getaddrinfo`, as outbound connections use), every address. */
export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

const inRanges = (address: Address, ranges: EndpointAllowlist['ranges']) =>
  ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));

/**
 * Why an address may not be reached, or null when it may: anything but public unicast (loopback,
 * private, unique-local, link-local — cloud metadata included —, carrier-grade NAT, unspecified,
 * multicast, reserved and the like), unless the allow-list covers it.
 */
export function addressProblem(text: string, allowlist: EndpointAllowlist = EMPTY_ALLOWLIST): string | null {
  if (!ipaddr.isValid(text)) return `${text} is not an IP address`;
  // IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
  const address = ipaddr.process(text);
  if (inRanges(address, allowlist.ranges)) return null;
  const range = address.range();
  return range === 'unicast' ? null : `${address.toString()} is a ${range} address`;
}

/** Whether a bind address or host name is this machine only (loopback). */
export function isLoopbackHost(host: string): boolean {
  const name = normalHost(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return ipaddr.isValid(name) && ipaddr.process(name).range() === 'loopback';
}

/**
 * Why an outbound endpoint (an untrusted, user-saved URL such as an `llm_configs` row) may not be
 * called, or null when it may: its host must be allow-listed, or every address it resolves to must
 * be public (see {@link addressProblem}). A host that does not resolve is refused too. The message
 * names the host and the address, never the rest of the URL (it may carry credentials).
 */
export async function endpointProblem(
  endpoint: string,
  allowlist: EndpointAllowlist = EMPTY_ALLOWLIST,
  resolve: Resolver = systemResolver,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an http(s) URL';
  }
  const host = normalHost(url.hostname);
  if (allowlist.hosts.has(host)) return null;
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'lookup failed';
      return `host ${host} does not resolve (${code})`;
    }
    if (addresses.length === 0) return `host ${host} does not resolve`;
  }
  for (const address of addresses) {
    const problem = addressProblem(address, allowlist);
    if (problem) return `host ${host} resolves to a non-public address (${problem}); allow-list it to use it`;
  }
  return null;
}
