// A document's own number found in the books however it is written: generated references
// ("MEW/9334", "2025-26/INV/0042", "GW 114") typed again with other separators, spaces and case,
// on servers that search every way a server may (case-insensitive, case-sensitive, only by name,
// not at all), the book's record dated months before the new one so no date window finds it.
// A reference whose serial differs is never taken for it.
import type { ToolDefinition } from '@munim/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDuplicate, searchTerms } from '../src/confirmation/duplicates.ts';
import { tool } from './camel-books.ts';
import { fakeAgent } from './fake-agent.ts';

type Args = Record<string, unknown>;

const SEPARATORS = ['/', '-', ' ', '.', ' / ', ' - ', ''] as const;

/**
 * A reference as vendors write them (a few letters, a year or financial year, a serial, in either
 * order), stored one way and typed another: other separators, lower case, spaces around it.
 */
const referenceCase = fc.record({
  letters: fc.option(fc.stringMatching(/^[A-HJ-NP-Z]{1,4}$/), { nil: undefined }),
  year: fc.option(fc.constantFrom('2025', '2026', '25-26', '2025-26'), { nil: undefined }),
  serial: fc.integer({ min: 1, max: 99_990 }),
  width: fc.integer({ min: 3, max: 5 }),
  serialFirst: fc.boolean(),
  stored: fc.constantFrom(...SEPARATORS),
  typed: fc.constantFrom(...SEPARATORS),
  casing: fc.constantFrom('as stored', 'lower', 'padded'),
  vendor: fc.integer({ min: 1, max: 9 }),
});
type ReferenceCase = typeof referenceCase extends fc.Arbitrary<infer T> ? T : never;

/** The reference of `c` with `serial`, joined by `separator`. */
function written(c: ReferenceCase, serial: number, separator: string): string {
  const number = String(serial).padStart(c.width, '0');
  const parts = [c.letters, c.year, number].filter((p): p is string => p !== undefined);
  return (c.serialFirst ? parts.reverse() : parts).join(separator);
}

const typedAs = (c: ReferenceCase, text: string) =>
  c.casing === 'lower' ? text.toLowerCase() : c.casing === 'padded' ? ` ${text} ` : text;

const today = new Date().toISOString().slice(0, 10);
const MONTHS_AGO = new Date(Date.now() - 150 * 86_400_000).toISOString().slice(0, 10);

interface Style {
  name: string;
  create: string;
  /** The read tools of the server, and how they answer. */
  tools: ToolDefinition[];
  read: (tool: string, args: Args, bills: Args[]) => unknown;
  /** A record of the books: the vendor's bill with this reference, months ago. */
  record: (vendor: string, ref: string) => Args;
  /** The call creating a bill for the vendor with this reference (undated: dated today). */
  call: (vendor: string, ref: string) => Args;
}

const str = { type: 'string' };

/** The bills a list gives: the vendor's and those dated from the date asked for, by `[record field, argument]`. */
const listed = (bills: Args[], args: Args, vendor: [string, string], from?: [string, string]) =>
  bills.filter(
    (b) =>
      (!args[vendor[1]] || b[vendor[0]] === args[vendor[1]]) &&
      (!from || !args[from[1]] || String(b[from[0]]) >= String(args[from[1]])),
  );
const lines = [{ description: 'Copper cable', quantity: 2, rate: 950 }];

const STYLES: Style[] = [
  {
    name: 'PascalCase, a case-insensitive Search on the list',
    create: 'create_bill',
    tools: [
      tool('get_bills', {
        ContactId: str,
        FromDate: str,
        ToDate: str,
        Search: str,
        PageSize: { type: 'integer' },
      }),
      tool('create_bill', { ContactId: str, Reference: str, Lines: { type: 'array' } }, { write: true }),
    ],
    read: (_tool, args, bills) =>
      listed(bills, args, ['ContactId', 'ContactId'], ['Date', 'FromDate']).filter(
        (b) => !args.Search || String(b.Reference).toLowerCase().includes(String(args.Search).toLowerCase()),
      ),
    record: (vendor, ref) => ({
      BillId: `b-${ref}`,
      ContactId: vendor,
      Reference: ref,
      Date: MONTHS_AGO,
      Total: 2242,
    }),
    call: (vendor, ref) => ({ ContactId: vendor, Reference: ref, Lines: lines }),
  },
  {
    name: 'snake_case, a case-sensitive search tool',
    create: 'create_purchase_bill',
    tools: [
      tool('search_purchase_bills', { q: str }, { required: ['q'] }),
      tool('list_purchase_bills', { vendor_id: str, from_date: str, to_date: str }),
      tool(
        'create_purchase_bill',
        { vendor_id: str, reference: str, line_items: { type: 'array' } },
        { write: true },
      ),
    ],
    read: (name, args, bills) =>
      name === 'search_purchase_bills'
        ? { results: bills.filter((b) => String(b.reference).includes(String(args.q))) }
        : { bills: listed(bills, args, ['vendor_id', 'vendor_id'], ['bill_date', 'from_date']) },
    record: (vendor, ref) => ({
      id: `b-${ref}`,
      vendor_id: vendor,
      reference: ref,
      bill_date: MONTHS_AGO,
      total: 2242,
    }),
    call: (vendor, ref) => ({ vendor_id: vendor, reference: ref, line_items: lines }),
  },
  {
    name: 'camelCase, a search that looks only at names',
    create: 'createBill',
    tools: [
      tool('searchBills', { query: str }, { required: ['query'] }),
      tool('listBills', { vendorId: str, since: str, until: str }),
      tool('createBill', { vendorId: str, billNumber: str, lines: { type: 'array' } }, { write: true }),
    ],
    read: (name, args, bills) =>
      name === 'searchBills'
        ? { items: bills.filter((b) => String(b.vendorName).includes(String(args.query))) }
        : { items: listed(bills, args, ['vendorId', 'vendorId'], ['billDate', 'since']) },
    record: (vendor, ref) => ({
      id: `b-${ref}`,
      vendorId: vendor,
      vendorName: 'Mehta Electricals',
      billNumber: ref,
      billDate: MONTHS_AGO,
      total: { amount: 2242 },
    }),
    call: (vendor, ref) => ({ vendorId: vendor, billNumber: ref, lines }),
  },
  {
    name: 'dotted names, a list with no search at all',
    create: 'bills.create',
    tools: [
      tool('bills.list', { vendor: str, limit: { type: 'integer', maximum: 100 } }),
      tool('bills.create', { vendor: str, ref_no: str, items: { type: 'array' } }, { write: true }),
    ],
    read: (_tool, args, bills) => ({ data: listed(bills, args, ['vendor', 'vendor']) }),
    record: (vendor, ref) => ({ id: `b-${ref}`, vendor, ref_no: ref, date: MONTHS_AGO, amount: 2242 }),
    call: (vendor, ref) => ({ vendor, ref_no: ref, items: lines }),
  },
];

async function flagged(style: Style, books: Args[], args: Args) {
  const server = { tools: style.tools, books: (tool: string, a: Args) => style.read(tool, a, books) };
  const agent = fakeAgent(server);
  const found = await findDuplicate(agent.run, style.create, args, new Map());
  return { found, reads: agent.requests.filter((r) => r.subject === 'toolExecute').length };
}

describe("a document's own number, written otherwise", () => {
  it('searches by the number as sent and by its serial', () => {
    expect(searchTerms('MEW / 9334')).toEqual(['MEW / 9334', '9334']);
    expect(searchTerms('2025-26/INV/0042')).toEqual(['2025-26/INV/0042', '0042']);
    expect(searchTerms('mew9334')).toEqual(['mew9334', '9334']);
    expect(searchTerms('9334')).toEqual(['9334']);
    expect(searchTerms('AB-CDE')).toEqual(['AB-CDE', 'CDE']);
  });

  for (const style of STYLES)
    it(`is found months later on a server with ${style.name}; another serial is not (generated)`, async () => {
      await fc.assert(
        fc.asyncProperty(referenceCase, async (c) => {
          const stored = written(c, c.serial, c.stored);
          const typed = typedAs(c, written(c, c.serial, c.typed));
          const vendor = `v-${c.vendor}`;
          // Other bills of the vendor and of another, so the match is made among several.
          const books = [
            style.record(vendor, written(c, c.serial + 7, c.stored)),
            style.record(`v-${c.vendor + 10}`, written(c, c.serial + 3, c.stored)),
            style.record(vendor, stored),
            style.record(vendor, written(c, c.serial + 9, c.typed)),
          ];
          const same = await flagged(style, books, style.call(vendor, typed));
          expect(same.found, `"${typed}" against "${stored}" on ${today}`).toBeDefined();
          expect(same.found?.warning).toMatch(/number or reference/);
          expect(same.reads).toBeLessThanOrEqual(4);
          const another = typedAs(c, written(c, c.serial + 1, c.typed));
          const distinct = await flagged(style, books, style.call(vendor, another));
          expect(distinct.found, `"${another}" is another bill than "${stored}"`).toBeUndefined();
        }),
        { numRuns: 25, seed: 20261129 },
      );
    });
});
