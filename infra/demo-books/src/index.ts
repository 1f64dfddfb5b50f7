import { type Books, seedBooks } from './data.ts';
import { type Faults, type Listening, listen, type RecordedCall, type Runtime } from './server.ts';

export type { Account, Bill, Books, Contact, CreditNote, Invoice, JournalEntry, Payment } from './data.ts';
export { seedBooks } from './data.ts';
export type { Faults, Listening, RecordedCall } from './server.ts';
export { createMcpServer, runTool } from './server.ts';
export { TOOLS, type ToolDef, toolList } from './tools.ts';

export interface DemoBooksOptions {
  /** "Today" of the books (default: now). The seeded year of data ends on this date. */
  asOf?: Date;
  /** When set, /mcp requires `Authorization: Bearer <authToken>`. */
  authToken?: string;
  /** PRNG seed of the dataset (default: a fixed seed). */
  seed?: number;
}

export interface DemoBooks {
  /** Serves MCP (Streamable HTTP) on /mcp plus /healthz, /_calls and /_faults. Port 0 (default) picks a free port. */
  listen(port?: number, host?: string): Promise<Listening>;
  /** Every tools/call received so far, in arrival order. */
  calls(): RecordedCall[];
  resetCalls(): void;
  /** The live in-memory books; tools read and mutate it. */
  store: Books;
  /** Replaces the fault configuration ({} clears it). */
  setFaults(faults: Faults): void;
  faults(): Faults;
}

export function createDemoBooks(opts: DemoBooksOptions = {}): DemoBooks {
  const rt: Runtime = {
    books: seedBooks({
      ...(opts.asOf && { asOf: opts.asOf }),
      ...(opts.seed !== undefined && { seed: opts.seed }),
    }),
    calls: [],
    faults: {},
    drops: new Map(),
  };
  return {
    listen: (port = 0, host = '127.0.0.1') =>
      listen(rt, { ...(opts.authToken && { authToken: opts.authToken }) }, port, host),
    calls: () => [...rt.calls],
    resetCalls: () => {
      rt.calls.length = 0;
    },
    store: rt.books,
    setFaults: (faults) => {
      rt.faults = { ...faults };
    },
    faults: () => rt.faults,
  };
}
