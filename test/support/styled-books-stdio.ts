// The styled books over stdio, for an executor that spawns it:
//   node test/support/styled-books-stdio.ts <style>
// Each tools/call received is appended as one JSON line ({ tool, args }) to the file named by
// FIXTURE_CALL_LOG, so a test can read what the server was sent.
import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createStyledServer, isStyle, STYLES, seedBook } from './styled-books.ts';

const style = process.argv[2];
if (!isStyle(style)) {
  process.stderr.write(`usage: styled-books-stdio.ts <${STYLES.join('|')}>\n`);
  process.exit(2);
}
const log = process.env.FIXTURE_CALL_LOG;
const server = createStyledServer(style, seedBook(), (call) => {
  if (log) appendFileSync(log, `${JSON.stringify(call)}\n`);
});
await server.connect(new StdioServerTransport());
