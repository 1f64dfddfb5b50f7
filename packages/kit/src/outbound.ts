import { type LookupAddress, type LookupAllOptions, type LookupOneOptions, lookup } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { addressProblem, type EndpointAllowlist } from './endpoints.ts';

/** A call to an endpoint this process may not reach; the message names the host and address, never the URL. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `dns.lookup` for sockets that refuses, at connect time, a host resolving to an address the
 * allow-list does not cover: the address judged is the one the socket connects to, so a name that
 * resolved to a public address when it was checked cannot be rebound to a private one afterwards.
 */
function checkedLookup(allowlist: EndpointAllowlist) {
  return (host: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    lookup(host, { ...options, all: true }, (error, entries) => {
      if (error) return callback(error, []);
      const name = host.toLowerCase().replace(/\.$/, '');
      if (!allowlist.hosts.has(name)) {
        for (const entry of entries) {
          const problem = addressProblem(entry.address, allowlist);
          if (problem)
            return callback(
              Object.assign(
                new OutboundRefusedError(`host ${name} resolves to a non-public address (${problem})`),
                {
                  code: 'EREFUSEDADDRESS',
                },
              ),
              [],
            );
        }
      }
      if ((options as LookupAllOptions).all) return callback(null, entries);
      const [first] = entries;
      if (!first)
        return callback(Object.assign(new Error(`host ${name} does not resolve`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** What an outbound fetch may do. */
export interface OutboundOptions {
  /**
   * When given, only public addresses and what this allow-list covers may be reached, judged at
   * connect time. For endpoints people save (a model configuration row); the operator's own
   * environment (`OPENAI_BASE_URL`) names what it means to reach and is not checked.
   */
  allowlist?: EndpointAllowlist | undefined;
}

/**
 * A `fetch` for model and speech endpoints: a redirect is an error, never followed (an endpoint
 * cannot send a request, with its key, somewhere else), and with an allow-list every connection is
 * checked against it as it is made.
 */
export function outboundFetch(options: OutboundOptions = {}): typeof fetch {
  const { allowlist } = options;
  const dispatcher = allowlist ? new Agent({ connect: { lookup: checkedLookup(allowlist) } }) : undefined;
  const guarded = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    if (allowlist) {
      // A literal address is connected to without a lookup: judge it here (it cannot be rebound).
      const url = new URL(input instanceof Request ? input.url : String(input));
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (ipaddr.isValid(host)) {
        const problem = addressProblem(host, allowlist);
        if (problem) throw new OutboundRefusedError(`host ${host} is not a public address (${problem})`);
      }
    }
    // The runtime's own fetch where no address check is needed: its FormData and Blob bodies
    // (speech uploads) are its own. Undici's fetch, with the checking dispatcher, for saved endpoints.
    if (!dispatcher) return fetch(input, { ...init, redirect: 'error' });
    const response = await undiciFetch(
      input as never,
      { ...(init as object), redirect: 'error', dispatcher } as never,
    );
    return response as unknown as Response;
  };
  return guarded as typeof fetch;
}
