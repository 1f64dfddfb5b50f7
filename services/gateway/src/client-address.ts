import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/**
 * Fastify's `trustProxy` for `TRUST_PROXY_HOPS`: the socket peer and the rightmost `hops - 1`
 * entries of `X-Forwarded-For` are trusted proxies, so the address the outermost trusted proxy
 * appended is the client. A function, since fastify 5 ignores a numeric hop count (it trusts no
 * hop at all). Zero: `false`, the socket address, and no forwarded header is read.
 */
export function trustHops(hops: number): false | ((address: string, hop: number) => boolean) {
  if (!Number.isInteger(hops) || hops < 0) {
    throw new RangeError(`TRUST_PROXY_HOPS: must be a whole number of 0 or more, not ${hops}`);
  }
  return hops === 0 ? false : (_address, hop) => hop < hops;
}

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_V6 = /^\[([^\]]+)\](?::\d{1,5})?$/;
const MAPPED_V4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** IPv6 in its canonical text (RFC 5952, as WHATWG URLs write it), an IPv4-mapped one as IPv4. */
function canonicalV6(address: string): string {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = MAPPED_V4.exec(canonical);
  if (!mapped) return canonical;
  const [high, low] = [Number.parseInt(mapped[1] ?? '0', 16), Number.parseInt(mapped[2] ?? '0', 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * One address as a proxy may write it (`1.2.3.4`, `1.2.3.4:5678`, `[2001:DB8::1]:443`,
 * `::ffff:1.2.3.4`), in the one form a limit is keyed by: dotted IPv4, or canonical IPv6 without
 * brackets, port or zone. Null for anything else (`unknown`, a name, garbage).
 */
export function normaliseAddress(text: string | undefined): string | null {
  if (text === undefined) return null;
  let address = text.trim();
  address = IPV4_WITH_PORT.exec(address)?.[1] ?? BRACKETED_V6.exec(address)?.[1] ?? address;
  const version = isIP(address);
  if (version === 4) return address;
  // A zone (`fe80::1%eth0`) names the receiver's interface, not the client.
  return version === 6 ? canonicalV6(address.replace(/%.*$/, '')) : null;
}

/**
 * The client address that failed-authentication lockouts and rate limits are keyed by: the
 * socket peer, or with trusted hops the address the outermost trusted proxy appended to
 * `X-Forwarded-For` (what the client wrote to the left of it is never read). A trusted entry that
 * is no address breaks the chain: the last good address before it stands, so garbage in the
 * header never becomes a key of its own.
 */
export function clientAddress(request: FastifyRequest): string {
  // `ips` exists only with trustProxy: the socket peer, then the trusted entries from the right.
  const chain = request.ips ?? [request.ip];
  let client = normaliseAddress(chain[0]) ?? 'unknown';
  for (const entry of chain.slice(1)) {
    const address = normaliseAddress(entry);
    if (address === null) break;
    client = address;
  }
  return client;
}
