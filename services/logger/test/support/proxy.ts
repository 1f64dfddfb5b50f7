import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy to a target the test controls: `cut()` makes the target unreachable, `restore()` brings it back. */
export interface TcpProxy {
  port: number;
  /** Drops every open connection and refuses new ones (they are closed at once). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy on a free local port that forwards to `host:port`. */
export async function startProxy(host: string, port: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(port, host);
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    cut() {
      down = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
