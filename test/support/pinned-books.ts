// A small accounting MCP server whose tools' descriptions can change while it runs, for the test of
// pinned tool definitions (test/e2e/pinned-tools.test.ts). Over Streamable HTTP in the test's own
// process (`startPinnedBooks`), or over stdio (`node pinned-books.ts <noun>`) reading its
// descriptions from the file PINNED_BOOKS_DESCRIPTIONS names, which it watches. Either way it sends
// tools/list_changed when a description changes.
import { existsSync, readFileSync, watchFile } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type FixtureSpec, jsonResult, type ReceivedCall, serveHttp, serveStdio } from './mcp-fixture.ts';

/** A call the server received. */
export type PinnedBooksCall = ReceivedCall;

/** The tools' descriptions by name: the part of their definitions a test changes. */
export type Descriptions = Record<string, string>;

/** The first listing's descriptions of a book whose tools are named after `noun` (`invoices`, `bills`). */
export function initialDescriptions(noun: string): Descriptions {
  return { [`list_${noun}`]: `Lists the ${noun} of the books.`, get_contact: 'Reads one contact by name.' };
}

const RECORDS = [
  { Number: 'INV-043', Contact: { Name: 'Acme Corp' }, Total: 12_000, Date: '2026-10-02' },
  { Number: 'INV-044', Contact: { Name: 'Globex' }, Total: 4_500, Date: '2026-10-09' },
];

/** The book: its tools as `descriptions()` says now. */
function pinnedBooks(descriptions: () => Descriptions): FixtureSpec {
  return {
    name: 'pinned-books',
    tools: () =>
      Object.entries(descriptions()).map(([name, description]) => ({
        name,
        description,
        inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
        annotations: { readOnlyHint: true },
      })),
    call: () => jsonResult(RECORDS),
  };
}

/** The book over Streamable HTTP in this process. */
export interface PinnedBooks {
  url: string;
  calls: PinnedBooksCall[];
  /** Changes a tool's description and tells every session its tools changed. */
  describe(tool: string, description: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the book over Streamable HTTP on a free port. */
export async function startPinnedBooks(noun: string): Promise<PinnedBooks> {
  const descriptions = initialDescriptions(noun);
  const fixture = await serveHttp(pinnedBooks(() => descriptions));
  return {
    url: fixture.url,
    calls: fixture.calls,
    async describe(tool, description) {
      descriptions[tool] = description;
      await fixture.toolsChanged();
    },
    close: () => fixture.close(),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const noun = process.argv[2] ?? 'invoices';
  const file = process.env.PINNED_BOOKS_DESCRIPTIONS;
  const server = await serveStdio(
    pinnedBooks(() =>
      file && existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as Descriptions)
        : initialDescriptions(noun),
    ),
  );
  if (file)
    watchFile(file, { interval: 100 }, () => void server.sendToolListChanged().catch(() => undefined));
  // The file watch would keep this process alive after the executor closes the session.
  server.onclose = () => process.exit(0);
}
