#!/usr/bin/env node
// Runs the demo books MCP server: PORT (3100), HOST (127.0.0.1), MCP_AUTH_TOKEN (optional).
import { pino } from 'pino';
import { createDemoBooks } from './index.ts';

const log = pino({ name: 'demo-books' });
const port = Number(process.env.PORT ?? 3100);
const host = process.env.HOST ?? '127.0.0.1';
const authToken = process.env.MCP_AUTH_TOKEN || undefined;

const server = await createDemoBooks({ ...(authToken && { authToken }) }).listen(port, host);
log.info({ url: server.url }, 'demo books MCP server listening');

const stop = (signal: NodeJS.Signals): void => {
  server.close().then(
    () => {
      log.info({ signal }, 'demo books MCP server stopped');
      process.exit(0);
    },
    (err: unknown) => {
      log.error({ err }, 'demo books MCP server failed to stop cleanly');
      process.exit(1);
    },
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
