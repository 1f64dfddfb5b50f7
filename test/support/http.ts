/** The headers of a JSON request made with a bearer key or token. */
export function bearerJson(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

/**
 * `call(method, path, body?, headers?)`: a JSON request to the gateway, sent with `headers` by
 * default. The gateway's URL is read at each call (the system starts in `beforeAll`).
 */
export function jsonCaller(gatewayUrl: () => string, headers: Record<string, string>) {
  return (method: string, path: string, body?: unknown, callHeaders: Record<string, string> = headers) =>
    fetch(`${gatewayUrl()}${path}`, {
      method,
      headers: callHeaders,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}
