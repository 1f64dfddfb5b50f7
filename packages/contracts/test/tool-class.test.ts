// "A read must be proven" (docs/mcp-servers.md), tested generatively: a grammar of tool names whose parts
// have roles (read verbs, change verbs, words that are verbs and nouns of the books, nouns, unknown
// words, conjunctions, server prefixes), rendered in every naming style, each name with the class
// the rule gives it from its roles alone — then the names real public MCP servers use.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BOOK_NOUNS,
  CONJUNCTIONS,
  classifyTool,
  describedChange,
  parseToolName,
  READ_VERBS,
  VERB_NOUNS,
  verbClass,
} from '../src/index.ts';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261126);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 4000);

// ── The grammar's parts, by role ───────────────────────────────────────────

const READ = [
  'get',
  'list',
  'search',
  'find',
  'fetch',
  'read',
  'show',
  'view',
  'describe',
  'count',
  'lookup',
  'retrieve',
  'browse',
  'inspect',
  'preview',
  'download',
];
/** Words that are only ever verbs of change. */
const CHANGE = [
  'delete',
  'approve',
  'archive',
  'purge',
  'insert',
  'upsert',
  'settle',
  'mark',
  'create',
  'remove',
  'cancel',
  'void',
  'modify',
  'amend',
  'rename',
  'reconcile',
  'allocate',
  'update',
  'add',
  'submit',
  'revert',
  'erase',
  'destroy',
  'terminate',
  'reject',
  'send',
  'apply',
  'receive',
  'withdraw',
  'convert',
  'restore',
  'write',
  'edit',
  'wipe',
  'unpost',
  'finalize',
];
const DESTRUCTIVE = new Set([
  'delete',
  'approve',
  'archive',
  'purge',
  'settle',
  'remove',
  'cancel',
  'void',
  'revert',
  'reverse',
  'erase',
  'destroy',
  'terminate',
  'reject',
  'wipe',
  'unpost',
  'file',
  'close',
  'lock',
]);
/** Verbs that are also nouns of the books. */
const VERB_NOUN = [
  'bill',
  'credit',
  'transfer',
  'order',
  'charge',
  'post',
  'debit',
  'record',
  'deposit',
  'refund',
  'book',
  'file',
  'pay',
  'reverse',
  'share',
];
const NOUN = [
  'invoice',
  'invoices',
  'customer',
  'customers',
  'payment',
  'payments',
  'account',
  'accounts',
  'journal',
  'entries',
  'vendor',
  'vendors',
  'ledger',
  'report',
  'contacts',
  'tax',
  'rate',
  'balance',
  'statement',
  'profit',
  'loss',
  'items',
  'expenses',
  'receivables',
  'summary',
  'details',
];
const CONJ = ['and', 'or', 'then', 'plus'];
const BENIGN_PREFIX = ['books', 'acme_erp', 'qbo', 'xero', 'ledgerly', 'zoho_books', 'my_server'];
const CHANGE_PREFIX = ['purge_ledger', 'delete_all', 'approve_bills', 'post', 'mark_paid', 'bill_pay'];

const SYLLABLES = ['zor', 'blim', 'quan', 'fex', 'druv', 'plox', 'trab', 'wug', 'snib', 'kev', 'yup', 'grom'];
const ENDINGS = ['ok', 'ix', 'u', 'ub', 'ek', 'o'];
/** A word no list knows (and shaped like no noun: no plural, -ed, -ing, …). */
const unknownWord = fc
  .tuple(fc.constantFrom(...SYLLABLES), fc.constantFrom(...SYLLABLES), fc.constantFrom(...ENDINGS))
  .map(([a, b, c]) => `${a}${b}${c}`);

/** A name as words, with the class the rule gives it and the tier it asks for. */
interface Generated {
  words: string[];
  prefix?: string;
  kind: 'read' | 'write';
  /** The least tier a write asks for (3 when a destructive word is in it). */
  minTier: 0 | 1 | 3;
  /** Whether the name puts the resource first (`invoices.list`): only some styles keep that readable. */
  template: string;
}

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const nouns = fc.array(pick(NOUN), { minLength: 1, maxLength: 2 });
const tierOf = (...changes: string[]): 1 | 3 => (changes.some((c) => DESTRUCTIVE.has(c)) ? 3 : 1);

/** The templates: each a way a name is built, and what the rule says of it. */
const templates: fc.Arbitrary<Generated>[] = [
  fc
    .tuple(pick(READ), nouns)
    .map(([r, n]) => ({ words: [r, ...n], kind: 'read', minTier: 0, template: 'read noun' })),
  fc.tuple(pick(READ), pick(VERB_NOUN), fc.array(pick(NOUN), { maxLength: 1 })).map(([r, vn, n]) => ({
    words: [r, vn, ...n],
    kind: 'read',
    minTier: 0,
    template: 'read verb-noun as its object',
  })),
  fc.tuple(pick(READ), nouns, pick(VERB_NOUN)).map(([r, n, vn]) => ({
    words: [r, ...n, vn],
    kind: 'read',
    minTier: 0,
    template: 'read noun verb-noun',
  })),
  fc.tuple(pick(READ), unknownWord, fc.array(pick(NOUN), { maxLength: 1 })).map(([r, u, n]) => ({
    words: [r, u, ...n],
    kind: 'read',
    minTier: 0,
    template: 'read unknown-object',
  })),
  fc
    .tuple(
      pick(READ),
      fc.array(pick(NOUN), { maxLength: 2 }),
      pick(CONJ),
      pick(CHANGE),
      fc.array(pick(NOUN), { maxLength: 2 }),
    )
    .map(([r, n1, c, ch, n2]) => ({
      words: [r, ...n1, c, ch, ...n2],
      kind: 'write',
      minTier: tierOf(ch),
      template: 'read conj change',
    })),
  fc
    .tuple(
      pick(READ),
      fc.array(pick(NOUN), { maxLength: 2 }),
      pick(CONJ),
      pick(VERB_NOUN),
      fc.array(pick(NOUN), { maxLength: 2 }),
    )
    .map(([r, n1, c, vn, n2]) => ({
      words: [r, ...n1, c, vn, ...n2],
      kind: 'write',
      minTier: tierOf(vn),
      template: 'read conj verb-noun',
    })),
  fc
    .tuple(pick(READ), nouns, pick(CONJ), unknownWord, fc.array(pick(NOUN), { maxLength: 1 }))
    .map(([r, n1, c, u, n2]) => ({
      words: [r, ...n1, c, u, ...n2],
      kind: 'write',
      minTier: 1,
      template: 'read conj unknown (a verb we cannot rule out)',
    })),
  fc
    .tuple(pick(READ), nouns, pick(CONJ), pick(READ), fc.array(pick(NOUN), { maxLength: 2 }))
    .map(([r, n1, c, r2, n2]) => ({
      words: [r, ...n1, c, r2, ...n2],
      kind: 'read',
      minTier: 0,
      template: 'read conj read',
    })),
  fc.tuple(pick(READ), nouns, pick(CONJ), pick(NOUN)).map(([r, n1, c, n2]) => ({
    words: [r, ...n1, c, n2],
    kind: 'read',
    minTier: 0,
    template: 'read noun conj noun',
  })),
  fc
    .tuple(
      pick(READ),
      fc.array(pick(NOUN), { maxLength: 2 }),
      pick(CHANGE),
      fc.array(pick(NOUN), { maxLength: 2 }),
    )
    .map(([r, n1, ch, n2]) => ({
      words: [r, ...n1, ch, ...n2],
      kind: 'write',
      minTier: tierOf(ch),
      template: 'read with an only-verb anywhere',
    })),
  fc.tuple(pick(CHANGE), fc.array(pick(NOUN), { maxLength: 2 })).map(([ch, n]) => ({
    words: [ch, ...n],
    kind: 'write',
    minTier: tierOf(ch),
    template: 'change verb',
  })),
  fc.tuple(pick(VERB_NOUN), nouns).map(([vn, n]) => ({
    words: [vn, ...n],
    kind: 'write',
    minTier: tierOf(vn),
    template: 'verb-noun as the verb',
  })),
  fc.tuple(unknownWord, fc.array(pick(NOUN), { maxLength: 2 })).map(([u, n]) => ({
    words: [u, ...n],
    kind: 'write',
    minTier: 1,
    template: 'unknown verb',
  })),
  fc.tuple(nouns, pick(READ)).map(([n, r]) => ({
    words: [...n, r],
    kind: 'read',
    minTier: 0,
    template: 'resource-first read',
  })),
  fc.tuple(nouns, pick(CHANGE)).map(([n, ch]) => ({
    words: [...n, ch],
    kind: 'write',
    minTier: tierOf(ch),
    template: 'resource-first change',
  })),
  fc
    .tuple(
      pick(['write', 'execute', 'exec', 'run', 'raw', 'custom', 'db']),
      pick(['query', 'sql', 'graphql']),
    )
    .map(([v, q]) => ({
      words: [v, q],
      kind: 'write',
      minTier: 3,
      template: 'statement runner',
    })),
  fc.tuple(pick(['run', 'execute', 'exec']), fc.array(pick(NOUN), { maxLength: 2 })).map(([v, n]) => ({
    words: [v, ...n],
    kind: 'write',
    minTier: 3,
    template: 'runner verb',
  })),
];

/** A generated name with a server prefix: a benign one keeps the class, one naming a change makes a write. */
const prefixed: fc.Arbitrary<Generated> = fc
  .tuple(fc.oneof(...templates), fc.boolean(), pick(BENIGN_PREFIX), pick(CHANGE_PREFIX))
  .map(([g, benign, good, bad]) =>
    benign
      ? { ...g, prefix: good, template: `${good}__ ${g.template}` }
      : {
          ...g,
          prefix: bad,
          kind: 'write',
          minTier: Math.max(g.minTier, tierOf(...bad.split('_'))) as 1 | 3,
          template: `${bad}__ ${g.template}`,
        },
  );

const STYLES = ['snake', 'kebab', 'camel', 'pascal', 'dotted', 'space-free upper snake'] as const;
const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
function render(words: readonly string[], style: (typeof STYLES)[number]): string {
  switch (style) {
    case 'snake':
      return words.join('_');
    case 'kebab':
      return words.join('-');
    case 'camel':
      return words.map((w, i) => (i === 0 ? w : cap(w))).join('');
    case 'pascal':
      return words.map(cap).join('');
    case 'dotted':
      return words.join('.');
    default:
      return words.join('_').toUpperCase();
  }
}

const named = fc.tuple(fc.oneof(fc.oneof(...templates), prefixed), pick(STYLES)).map(([g, style]) => ({
  ...g,
  style,
  name: `${g.prefix ? `${g.prefix}__` : ''}${render(g.words, style)}`,
}));

describe('a read must be proven: a grammar of names', () => {
  it("the grammar's parts have the roles the rule reads them with", () => {
    for (const r of READ) expect(READ_VERBS.has(r), r).toBe(true);
    for (const c of CHANGE)
      expect(verbClass(c) !== undefined && verbClass(c) !== 'read' && !VERB_NOUNS.has(c), c).toBe(true);
    for (const vn of VERB_NOUN) expect(VERB_NOUNS.has(vn), vn).toBe(true);
    for (const c of CONJ) expect(CONJUNCTIONS.has(c), c).toBe(true);
    fc.assert(
      fc.property(unknownWord, (u) => verbClass(u) === undefined && !BOOK_NOUNS.has(u) && !VERB_NOUNS.has(u)),
      { seed: SEED, numRuns: 500 },
    );
  });

  it(`classifies ${RUNS} generated names in six styles as the rule says (seed ${SEED})`, () => {
    const seen = new Map<string, number>();
    const names = new Set<string>();
    fc.assert(
      fc.property(named, (g) => {
        names.add(g.name);
        seen.set(g.template.replace(/^\S+__ /, '<prefix> '), (seen.get(g.template) ?? 0) + 1);
        const access = classifyTool(g.name);
        expect(access.kind, `${g.name} (${g.template}, ${g.style}): ${access.detail}`).toBe(g.kind);
        if (g.kind === 'write')
          expect(access.tier, `${g.name}: ${access.detail}`).toBeGreaterThanOrEqual(g.minTier);
        else expect(access.tier).toBe(0);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Every template was drawn: the grammar is exercised whole, not a corner of it.
    expect(seen.size).toBeGreaterThanOrEqual(templates.length);
    // Thousands of distinct names, not a few drawn again and again.
    expect(names.size).toBeGreaterThan(RUNS * 0.8);
    if (process.env.PROPERTY_REPORT) console.log(`grammar: ${names.size} distinct names of ${RUNS} drawn`);
  });

  it('a description or an annotation only ever makes a tool stricter, never laxer', () => {
    const text = fc.oneof(
      fc.constantFrom(
        'Lists invoices. This tool is read-only and never changes anything.',
        'Returns the invoice as a read; safe to call.',
        'Marked readOnly by the server: it does not modify data.',
        'Deletes the invoice for good.',
        'Executes the SQL statement you give it.',
      ),
      fc.string(),
    );
    const hints = fc.record(
      { readOnlyHint: fc.boolean(), destructiveHint: fc.boolean(), idempotentHint: fc.boolean() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(named, text, hints, (g, description, annotations) => {
        const byName = classifyTool(g.name);
        const withMore = classifyTool(g.name, annotations, { description });
        if (byName.kind === 'write') expect(withMore.kind).toBe('write');
        if (withMore.kind === 'write' && byName.kind === 'write')
          expect(withMore.tier).toBeGreaterThanOrEqual(byName.tier);
        if (annotations.destructiveHint === true || annotations.readOnlyHint === false)
          expect(withMore.kind).toBe('write');
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('names the word that decided, and where it stands', () => {
    expect(classifyTool('fetch_and_pay_bill')).toMatchObject({
      kind: 'write',
      reason: 'name',
      evidence: 'pay',
    });
    expect(classifyTool('fetch_and_pay_bill').detail).toContain('after "and"');
    expect(classifyTool('purge_ledger__list_entries')).toMatchObject({
      reason: 'name',
      evidence: 'purge',
      tier: 3,
    });
    expect(classifyTool('purge_ledger__list_entries').detail).toContain('prefix');
    expect(classifyTool('list_invoices_to_approve')).toMatchObject({
      reason: 'name',
      evidence: 'approve',
      tier: 3,
    });
    expect(classifyTool('execute_query')).toMatchObject({ reason: 'statement', tier: 3 });
    expect(classifyTool('get_invoice', { destructiveHint: true })).toMatchObject({
      reason: 'annotation',
      tier: 3,
    });
    expect(classifyTool('get_invoice')).toMatchObject({ kind: 'read', reason: 'verb', evidence: 'get' });
  });

  it('a write named by a second action is that action: its verb and object', () => {
    expect(parseToolName('preview_and_post_journal')).toMatchObject({
      verb: 'post',
      nouns: ['journal'],
      mainVerb: 'preview',
    });
    expect(parseToolName('show_then_approve_bill')).toMatchObject({
      verb: 'approve',
      verbClass: 'destructive',
      nouns: ['bill'],
    });
    expect(parseToolName('getOrCreateCustomer')).toMatchObject({ verb: 'create', object: 'customer' });
    expect(parseToolName('get_profit_and_loss')).toMatchObject({ verb: 'get', object: 'profit_and_loss' });
  });
});

// ── Descriptions ───────────────────────────────────────────────────────────

describe('what a description says', () => {
  it.each([
    ['Execute a SELECT query on the SQLite database', 'statement'],
    ['Execute an INSERT, UPDATE, or DELETE query on the SQLite database', 'statement'],
    ['Run a read-only SQL query', 'statement'],
    ['Runs arbitrary GraphQL against the ledger.', 'statement'],
    ['Accepts raw SQL and returns the rows.', 'statement'],
    ['Gets the invoice and marks it as sent.', 'change'],
    ['Retrieves a bill, then pays it from the default bank account.', 'change'],
    ['Looks up the customer; creates one when none matches.', 'change'],
    ['Fetch invoices. Deletes drafts older than a year.', 'change'],
    ['Use this to void an invoice.', 'change'],
    ['This tool will approve the bill once read.', 'change'],
    ['Posts a manual journal entry.', 'change'],
    ['Records money received from a customer.', 'change'],
    ['Emails a sales invoice (PDF) to the given address.', 'change'],
    ['Archive old invoices.', 'change'],
  ])('%j says the tool changes something (%s)', (description, kind) => {
    expect(describedChange(description)?.kind).toBe(kind);
  });

  it.each([
    'Lists sales invoices, newest first, with totals, amount paid, amount due and overdue days. Filter by status, customer, date range or a search text.',
    'Gets one sales invoice by InvoiceId or by InvoiceNumber (e.g. INV-0042). Give one of the two.',
    'Lists payments received from customers (RECEIVE) and made to vendors (SPEND), newest first.',
    'Lists purchase bills from vendors, newest first, with amount paid, amount due and overdue days.',
    'Lists sales credit notes (returns and refunds to customers), newest first.',
    'Trial balance as of a date: debit and credit balance of every account.',
    'Lists deleted and voided invoices.',
    'Search for nodes in the knowledge graph based on a query',
    'Read the entire knowledge graph',
    'List all tables in the SQLite database',
    'Get the schema information for a specific table',
    'Returns the invoice. It does not modify, delete or post anything.',
    'Lists bills you can approve, oldest first.',
    'Get the invoice id to use with void_invoice or deleteInvoice.',
    'Performs a search query over invoices by customer name.',
    'Generates the profit and loss report for a period.',
    'Query customers from QuickBooks',
  ])('%j says nothing of a change', (description) => {
    expect(describedChange(description)).toBeUndefined();
  });

  it('a read whose description says it changes something is a write, quoting the description', () => {
    const access = classifyTool('read_query', undefined, {
      description: 'Execute a SELECT query on the SQLite database',
    });
    expect(access).toMatchObject({ kind: 'write', reason: 'description', tier: 3 });
    expect(access.detail).toContain('Execute a SELECT query');
  });
});

// ── The names real public servers use ──────────────────────────────────────

/** [server, tool, description (as the server lists it, when it decides), expected class]. */
const REAL: [string, string, string | undefined, 'read' | 'write'][] = [
  // mcp-server-sqlite (modelcontextprotocol/servers, Python reference server)
  ['sqlite', 'read_query', 'Execute a SELECT query on the SQLite database', 'write'],
  ['sqlite', 'write_query', 'Execute an INSERT, UPDATE, or DELETE query on the SQLite database', 'write'],
  ['sqlite', 'create_table', 'Create a new table in the SQLite database', 'write'],
  ['sqlite', 'list_tables', 'List all tables in the SQLite database', 'read'],
  ['sqlite', 'describe_table', 'Get the schema information for a specific table', 'read'],
  ['sqlite', 'append_insight', 'Add a business insight to the memo', 'write'],
  // @modelcontextprotocol/server-postgres
  ['postgres', 'query', 'Run a read-only SQL query', 'write'],
  // @modelcontextprotocol/server-memory
  ['memory', 'create_entities', 'Create multiple new entities in the knowledge graph', 'write'],
  ['memory', 'create_relations', undefined, 'write'],
  ['memory', 'add_observations', undefined, 'write'],
  ['memory', 'delete_entities', undefined, 'write'],
  ['memory', 'delete_observations', undefined, 'write'],
  ['memory', 'delete_relations', undefined, 'write'],
  ['memory', 'read_graph', 'Read the entire knowledge graph', 'read'],
  ['memory', 'search_nodes', 'Search for nodes in the knowledge graph based on a query', 'read'],
  ['memory', 'open_nodes', 'Open specific nodes in the knowledge graph by their names', 'write'],
  // @modelcontextprotocol/server-everything
  ['everything', 'echo', 'Echoes back the input', 'write'],
  ['everything', 'add', 'Adds two numbers', 'write'],
  ['everything', 'longRunningOperation', undefined, 'write'],
  ['everything', 'printEnv', undefined, 'write'],
  ['everything', 'sampleLLM', undefined, 'write'],
  ['everything', 'getTinyImage', 'Returns the MCP_TINY_IMAGE', 'read'],
  ['everything', 'getResourceReference', undefined, 'read'],
  // Xero's MCP server (kebab-case)
  ['xero', 'list-invoices', undefined, 'read'],
  ['xero', 'list-profit-and-loss', undefined, 'read'],
  ['xero', 'list-trial-balance', undefined, 'read'],
  ['xero', 'list-report-balance-sheet', undefined, 'read'],
  ['xero', 'list-aged-receivables-by-contact', undefined, 'read'],
  ['xero', 'list-credit-notes', undefined, 'read'],
  ['xero', 'list-manual-journals', undefined, 'read'],
  ['xero', 'list-bank-transactions', undefined, 'read'],
  ['xero', 'list-organisation-details', undefined, 'read'],
  ['xero', 'create-invoice', undefined, 'write'],
  ['xero', 'update-bank-transaction', undefined, 'write'],
  ['xero', 'approve-payroll-timesheet', undefined, 'write'],
  ['xero', 'revert-payroll-timesheet', undefined, 'write'],
  ['xero', 'add-timesheet-line', undefined, 'write'],
  // QuickBooks Online MCP servers (snake_case)
  ['quickbooks', 'search_bill_payments', undefined, 'read'],
  ['quickbooks', 'read_journal_entry', undefined, 'read'],
  ['quickbooks', 'search_purchases', undefined, 'read'],
  ['quickbooks', 'get_company_info', 'Get QuickBooks company info (name, address, fiscal year)', 'read'],
  ['quickbooks', 'query_customers', 'Query customers from QuickBooks', 'read'],
  ['quickbooks', 'create_bill_payment', undefined, 'write'],
  ['quickbooks', 'receive_payment', undefined, 'write'],
  ['quickbooks', 'delete_purchase', undefined, 'write'],
  // Stripe's agent toolkit
  ['stripe', 'list_payment_intents', undefined, 'read'],
  ['stripe', 'retrieve_balance', undefined, 'read'],
  ['stripe', 'search_stripe_documentation', undefined, 'read'],
  ['stripe', 'finalize_invoice', undefined, 'write'],
  ['stripe', 'create_refund', undefined, 'write'],
  ['stripe', 'cancel_subscription', undefined, 'write'],
  ['stripe', 'update_dispute', undefined, 'write'],
  // Odoo MCP servers (model methods)
  ['odoo', 'search_read', undefined, 'read'],
  ['odoo', 'search_count', undefined, 'read'],
  ['odoo', 'execute_kw', 'Execute any method of an Odoo model', 'write'],
  ['odoo', 'write', undefined, 'write'],
  ['odoo', 'unlink', undefined, 'write'],
  // Zoho Books MCP
  ['zoho', 'list_invoices', undefined, 'read'],
  ['zoho', 'mark_invoice_as_sent', undefined, 'write'],
  ['zoho', 'email_invoice', undefined, 'write'],
  // MongoDB's MCP server
  ['mongodb', 'find', undefined, 'read'],
  ['mongodb', 'aggregate', undefined, 'write'],
  ['mongodb', 'insert-many', undefined, 'write'],
  ['mongodb', 'delete-many', undefined, 'write'],
  ['mongodb', 'drop-collection', undefined, 'write'],
  ['mongodb', 'list-collections', undefined, 'read'],
  // Generic API bridges (Stainless-built servers)
  ['conductor', 'list_api_endpoints', undefined, 'read'],
  ['conductor', 'get_api_endpoint_schema', undefined, 'read'],
  ['conductor', 'invoke_api_endpoint', 'Executes any endpoint with the appropriate parameters', 'write'],
  // Names that combine verbs (the issue's own report)
  ['combined', 'get_or_create_customer', undefined, 'write'],
  ['combined', 'fetch_and_pay_bill', undefined, 'write'],
  ['combined', 'show_then_approve_bill', undefined, 'write'],
  ['combined', 'read_and_archive_invoices', undefined, 'write'],
  ['combined', 'preview_and_post_journal', undefined, 'write'],
  ['combined', 'purge_ledger__list_entries', undefined, 'write'],
  ['combined', 'findOneAndDelete', undefined, 'write'],
  ['combined', 'findAndModify', undefined, 'write'],
];

describe('the names real public MCP servers use', () => {
  it.each(REAL)('%s: %s is a %s', (_server, tool, description, kind) => {
    const access = classifyTool(tool, undefined, { description });
    expect(access.kind, access.detail).toBe(kind);
  });
});
