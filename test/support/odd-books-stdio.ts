// The odd-shaped books over stdio, for an executor that spawns it:
//   node test/support/odd-books-stdio.ts <shape>
// Each tools/call received is appended as one JSON line ({ tool, args }) to the file named by
// FIXTURE_CALL_LOG, so a test can read what the server was sent.
import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createOddServer, isShape, SHAPES } from './odd-books.ts';

const shape = process.argv[2];
if (!isShape(shape)) {
  process.stderr.write(`usage: odd-books-stdio.ts <${SHAPES.join('|')}>\n`);
  process.exit(2);
}
const log = process.env.FIXTURE_CALL_LOG;
const server = createOddServer(shape, (call) => {
  if (log) appendFileSync(log, `${JSON.stringify(call)}\n`);
});
await server.connect(new StdioServerTransport());
