// The pinned books over stdio, for an executor that spawns it:
//   node test/support/pinned-books-stdio.ts <noun>
// PINNED_BOOKS_DESCRIPTIONS names a JSON file of descriptions by tool, read on every listing and
// watched: a change sends tools/list_changed. Each tools/call received is appended as one JSON
// line ({ tool, args }) to the file named by FIXTURE_CALL_LOG.
import { appendFileSync, existsSync, readFileSync, watchFile } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createPinnedServer, type Descriptions, initialDescriptions } from './pinned-books.ts';

const noun = process.argv[2] ?? 'invoices';
const file = process.env.PINNED_BOOKS_DESCRIPTIONS;
const log = process.env.FIXTURE_CALL_LOG;
const descriptions = (): Descriptions =>
  file && existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Descriptions)
    : initialDescriptions(noun);
const server = createPinnedServer(descriptions, (call) => {
  if (log) appendFileSync(log, `${JSON.stringify(call)}\n`);
});
if (file) watchFile(file, { interval: 100 }, () => void server.sendToolListChanged().catch(() => undefined));
// The file watch would keep this process alive after the executor closes the session.
server.onclose = () => process.exit(0);
await server.connect(new StdioServerTransport());
