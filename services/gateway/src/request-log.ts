import type { FastifyRequest } from 'fastify';

/** Query parameters that are credentials: a signed link's signature, S3 presigning, tokens. */
const SECRET_PARAMETER = /^(sig|signature|token|access_token|x-amz-.+)$/i;

/**
 * The URL with the values of credential query parameters (`sig`, `signature`, `token`,
 * `X-Amz-*`) replaced by `[redacted]`, so a signed download link logged stays unusable.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0] ?? '';
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A malformed name is logged as sent; it is no parameter we know.
      }
      return SECRET_PARAMETER.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, start)}?${query}`;
}

/** fastify's request serializer, with credentials taken out of the URL. */
export const requestLogSerializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
};
