import { isLoopbackHost } from '@munim/kit';
import fp from 'fastify-plugin';
import { httpError } from '../http-errors.ts';

/** What a request may name as `Host` and `Origin` while no credential is required. */
export interface HostCheckSettings {
  /** Host names (besides loopback ones) the gateway is reached by, e.g. HOST and GATEWAY_ALLOWED_HOSTS. */
  hosts: readonly string[];
  /** Origins allowed cross-origin (CORS_ORIGINS; `*` for any). */
  corsOrigins: readonly string[];
}

/** Probes carry whatever Host their platform uses, and these answer nothing about the books. */
const UNCHECKED = new Set(['/healthz', '/readyz']);

/** The host name of a `Host` header (`name:port`, `[v6]:port`), lower case, without brackets. */
function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  return host.replace(/:\d*$/, '');
}

/**
 * Without authentication the gateway trusts whoever reaches it, so a web page whose own name was
 * made to resolve to this machine (DNS rebinding) or a page of another site posting a form must
 * not get answers. While auth is off every request must name a loopback host or a configured one
 * in `Host`, and an `Origin`, when sent, must be the gateway's own (or a CORS origin); anything
 * else gets 403.
 */
export const hostCheck = fp<HostCheckSettings>(
  async (app, settings) => {
    const names = new Set(settings.hosts.map((host) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1')));
    const anyOrigin = settings.corsOrigins.includes('*');
    const origins = new Set(settings.corsOrigins);
    const hostAllowed = (host: string) => isLoopbackHost(host) || names.has(host);
    const originAllowed = (origin: string, host: string) => {
      if (anyOrigin || origins.has(origin)) return true;
      try {
        return new URL(origin).host === host;
      } catch {
        return false;
      }
    };
    const refuse = (what: string) =>
      httpError(
        'FORBIDDEN',
        `${what} is not served while no credential is configured: open the gateway at localhost or 127.0.0.1, ` +
          'list the host in GATEWAY_ALLOWED_HOSTS, or configure GATEWAY_API_KEYS.',
      );
    app.addHook('onRequest', async (request, reply) => {
      if (UNCHECKED.has(request.url.split('?')[0] ?? '')) return;
      const host = (request.headers.host ?? '').trim().toLowerCase();
      if (!hostAllowed(hostName(host))) return reply.code(403).send(refuse('This Host'));
      const origin = request.headers.origin;
      if (origin !== undefined && !originAllowed(origin, host)) {
        return reply.code(403).send(refuse('A request from another origin'));
      }
    });
  },
  { name: 'munim-host-check' },
);
