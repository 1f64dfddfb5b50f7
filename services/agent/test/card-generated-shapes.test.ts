// Confirmation cards tested by generation: records whose fields are spelled in every naming style
// (snake, camel, Pascal, kebab, upper snake), nested in every way the public APIs nest them (flat,
// a party object, a QuickBooks-style reference, an Odoo-style [id, name] pair, a money object, a
// header or totals object), with values in every shape (ISO, Microsoft JSON, compact and Unix
// dates; number-shaped or opaque ids) and with look-alike fields beside them (tax and sub-totals,
// open amounts, due and update dates, PO and phone numbers, the party's email). Each record's
// facts are known by construction; the reader must find exactly them, and a card for a write on
// the record, after the turn listed it among others, must name them. Seeded: CARD_SHAPES_SEED
// replays a run.
import { describe, expect, it } from 'vitest';
import { confirmationCard } from '../src/confirmation/card.ts';
import { readFacts } from '../src/confirmation/fields.ts';
import { lookUp } from '../src/confirmation/lookup.ts';
import { formatsFor } from '../src/render/locale.ts';
import { fakeAgent, toolDef } from './fake-agent.ts';

const SEED = Number(process.env.CARD_SHAPES_SEED ?? 20261126);
const CASES = Number(process.env.CARD_SHAPES_CASES ?? 400);
const fmt = formatsFor();

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Random = ReturnType<typeof random>;

const STYLES = {
  snake: (w: string[]) => w.join('_'),
  camel: (w: string[]) => w.map((x, i) => (i === 0 ? x : x[0]?.toUpperCase() + x.slice(1))).join(''),
  pascal: (w: string[]) => w.map((x) => x[0]?.toUpperCase() + x.slice(1)).join(''),
  kebab: (w: string[]) => w.join('-'),
  upper: (w: string[]) => w.join('_').toUpperCase(),
};
type Style = keyof typeof STYLES;

const NOUNS = [['invoice'], ['bill'], ['credit', 'note'], ['sales', 'order'], ['voucher'], ['receipt']];
const PARTIES = ['customer', 'client', 'contact', 'vendor', 'supplier', 'partner', 'payee', 'buyer', 'party'];
const NAMES = [
  'Acme Traders',
  'Bolt & Sons Pvt Ltd',
  "O'Brien Consulting",
  'Śrī Ganesh Stores',
  'Nova Labs LLP',
  'Kaveri Agro Foods',
  'Zed Retail (Pune)',
];
const CURRENCIES = ['INR', 'USD', 'EUR', 'GBP', 'AUD', 'AED'];
const PREFIXES = ['INV', 'BILL', 'CN', 'SO', 'SI', 'RCPT', 'F2E3B4C'];

const uuid = (r: Random) =>
  'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => '0123456789abcdef'[r.int(16)] as string);
const opaque = (r: Random) =>
  r.pick([
    uuid(r),
    `in_1${Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? 'MQ' : i % 3 === 1 ? 'tx' : '0123456789')[r.int(i % 3 === 2 ? 10 : 2)]).join('')}`,
    String(900000000000000 + r.int(99999999)),
  ]);

/** A document number a person knows: INV-0042, SI/2026/00042, CN 17, F2E3B4C-0001. */
function docNumber(r: Random, seq: number): string {
  const prefix = r.pick(PREFIXES);
  const n = String(seq).padStart(r.pick([1, 3, 4, 5]), '0');
  return r.pick([`${prefix}-${n}`, `${prefix}/2026/${n}`, `${prefix}${n}`, `${prefix} ${n}`]);
}

/** A date in one of the shapes the books write, and the calendar day it is. */
function dateValue(r: Random): { value: unknown; day: string } {
  const ms = Date.UTC(2020 + r.int(7), r.int(12), 1 + r.int(28));
  const day = new Date(ms).toISOString().slice(0, 10);
  const value = r.pick<unknown>([
    day,
    `${day}T00:00:00Z`,
    `/Date(${ms}+0000)/`,
    day.replace(/-/g, ''),
    // Noon UTC: the same calendar day in every business time zone.
    (ms + 12 * 3600_000) / 1000,
  ]);
  return { value, day };
}

interface Generated {
  record: Record<string, unknown>;
  noun: string[];
  /** The field and value a call points at the record with (the field's words, for a call in another style). */
  idKey: string;
  idWords: string[];
  idValue: unknown;
  facts: { number: string; party: string; amount: number; currency: string; day: string };
}

/** One record of a `noun`, its fields in `style`, its facts known by construction. */
function generate(r: Random, seq: number, style: Style, noun: string[]): Generated {
  const k = (...words: string[]) => STYLES[style](words);
  const record: Record<string, unknown> = {};
  const number = docNumber(r, seq);
  const party = r.pick(NAMES);
  const amount = (Math.round(r.next() * 1_000_000) + 100) / 100;
  const currency = r.pick(CURRENCIES);
  const date = dateValue(r);
  const partyNoun = r.pick(PARTIES);

  // The record's own id: a number-shaped id (the number lives there), or an opaque one beside a number field.
  let idWords: string[];
  let idKey: string;
  let idValue: unknown;
  const numberIn = r.pick(['field', 'field', 'id', 'name'] as const);
  if (numberIn === 'id') {
    idWords = r.pick([[...noun, 'id'], ['id']]);
    idKey = k(...idWords);
    idValue = number;
    record[idKey] = number;
  } else {
    idWords = r.pick([[...noun, 'id'], ['id']]);
    idKey = k(...idWords);
    idValue = r.chance(0.2) && idKey === k('id') ? 1000 + seq : opaque(r);
    record[idKey] = idValue;
    if (numberIn === 'name') record[k('name')] = number;
    else
      record[
        k(
          ...r.pick([
            [...noun, 'number'],
            ['doc', 'number'],
            ['number'],
            [...noun, 'no'],
            ['document', 'number'],
          ]),
        )
      ] = number;
  }

  // The party, flat or nested.
  const nameKey = () => k(...r.pick([['name'], ['display', 'name'], ['displayed', 'as'], ['full', 'name']]));
  switch (r.int(5)) {
    case 0:
      record[k(partyNoun, ...r.pick([['name'], ['display', 'name']]))] = party;
      break;
    case 1:
      record[k(partyNoun)] = party;
      break;
    case 2:
      record[k(partyNoun)] = { [k('id')]: uuid(r), [nameKey()]: party, [k('email')]: 'accounts@example.com' };
      break;
    case 3:
      record[k(partyNoun, 'ref')] = { value: String(10 + r.int(90)), name: party };
      break;
    default:
      record[k(partyNoun, 'id')] = [r.int(500), party];
  }
  if (r.chance(0.5)) record[k(partyNoun, 'email')] = 'billing@example.org';

  // The amount and its currency, flat, in a money object, or in a totals object.
  const currencyField = (): [string, unknown] =>
    r.pick<[string, unknown]>([
      [k('currency', 'code'), currency],
      [k('currency'), r.chance(0.5) ? currency : currency.toLowerCase()],
      [k('currency'), { [k('id')]: currency, [k('name')]: 'A currency' }],
      [k('currency', 'ref'), { value: currency, name: 'A currency' }],
      [k('currency', 'id'), [2, currency]],
    ]);
  switch (r.int(3)) {
    case 0: {
      record[
        k(
          ...r.pick([
            ['total'],
            ['total', 'amount'],
            ['amount', 'total'],
            ['grand', 'total'],
            [...noun, 'total'],
            ['total', 'amt'],
          ]),
        )
      ] = amount;
      const [ck, cv] = currencyField();
      record[ck] = cv;
      break;
    }
    case 1:
      record[k(r.pick(['total', 'amount']))] = { amount: amount.toFixed(2), code: currency };
      break;
    default: {
      record[k('totals')] = { [k('total')]: amount, [k('tax')]: Math.round(amount * 15) / 100 };
      const [ck, cv] = currencyField();
      record[ck] = cv;
    }
  }

  // The date, flat or in a header.
  const dateKey = k(
    ...r.pick([
      ['date'],
      [...noun, 'date'],
      ['txn', 'date'],
      ['issue', 'date'],
      ['issued', 'on'],
      ['document', 'date'],
    ]),
  );
  if (r.chance(0.2)) record[k('header')] = { [dateKey]: date.value, [k('status')]: 'open' };
  else record[dateKey] = date.value;

  // Look-alikes a reader must pass over.
  const decoys: [string[], unknown][] = [
    [['total', 'tax'], Math.round(amount * 18) / 100],
    [['sub', 'total'], Math.round(amount * 82) / 100],
    [['amount', 'due'], Math.round(amount * 50) / 100],
    [['discount', 'amount'], 10],
    [['due', 'date'], '2031-01-31'],
    [['updated', 'at'], '2031-02-01T10:00:00Z'],
    [['created', 'at'], '2019-01-01T10:00:00Z'],
    [['po', 'number'], 'PO-9911'],
    [['phone', 'number'], '+91 98200 12345'],
    [['reference'], 'REF-77/A'],
    [['exchange', 'rate'], 1.07],
    [['status'], 'AUTHORISED'],
    [
      ['line', 'items'],
      [{ description: 'Audit', quantity: 2, unit_price: 999999, line_amount: 1999998, date: '2030-01-01' }],
    ],
  ];
  for (const [words, value] of decoys) if (r.chance(0.6)) record[k(...words)] = value;

  // Field order is the server's: any.
  const shuffled = Object.entries(record).sort(() => r.next() - 0.5);
  return {
    record: Object.fromEntries(shuffled),
    noun,
    idKey,
    idWords,
    idValue,
    facts: { number, party, amount, currency, day: date.day },
  };
}

function cases() {
  const r = random(SEED);
  return Array.from({ length: CASES }, (_, i) => {
    const style = r.pick(Object.keys(STYLES) as Style[]);
    const noun = r.pick(NOUNS);
    const target = generate(r, 40 + i, style, noun);
    // Others of the same list, with numbers, parties and amounts of their own.
    const others = Array.from(
      { length: 1 + r.int(3) },
      (_, j) => generate(r, 100_000 + i * 10 + j, style, noun).record,
    );
    const at = r.int(others.length + 1);
    const list = [...others.slice(0, at), target.record, ...others.slice(at)];
    // The call spells its fields in a style of its own.
    const callStyle = r.pick(Object.keys(STYLES) as Style[]);
    return { i, style, callStyle, target, list };
  });
}

describe(`generated record shapes (seed ${SEED}, ${CASES} records)`, () => {
  const all = cases();

  it('the reader finds each record’s number, party, amount, currency and date, and nothing else', () => {
    const wrong = all.flatMap(({ i, style, target }) => {
      const got = readFacts(target.record, target.noun.join('_'));
      const { number, party, amount, currency, day } = target.facts;
      const same =
        got.number === number &&
        got.party === party &&
        got.amount === amount &&
        got.currency === currency &&
        fmt.date(got.date) === fmt.date(day);
      return same ? [] : [{ i, style, record: target.record, expected: target.facts, got }];
    });
    expect(wrong.slice(0, 3)).toEqual([]);
  });

  /** An agent whose turn listed `list`; a read, if any, gets the same list again. */
  function afterListing(
    style: Style,
    noun: string[],
    list: unknown[],
    write: string,
    args: Record<string, unknown>,
  ) {
    const plural = [...noun.slice(0, -1), `${noun.at(-1)}s`];
    const listTool = STYLES[style](['list', ...plural]);
    const listed = { [STYLES[style](plural)]: list };
    const agent = fakeAgent({
      tools: [toolDef(listTool), toolDef(write, args, { write: true })],
      books: () => listed,
    });
    agent.run.toolResults.push({ tool: listTool, input: {}, result: listed, success: true });
    return agent;
  }

  it('a card for a write on the record names it from what the turn listed, reading nothing again', async () => {
    const wrong: unknown[] = [];
    for (const { i, style, callStyle, target, list } of all) {
      const tool = STYLES[callStyle](['void', ...target.noun]);
      const args = { [STYLES[callStyle](target.idWords)]: target.idValue };
      const agent = afterListing(style, target.noun, list, tool, args);
      const card = confirmationCard(tool, args, 3, { lookups: await lookUp(agent.run, tool, args) });
      const { number, party, amount, currency, day } = target.facts;
      const expected = `This will void the ${target.noun.join(' ')} ${number} of ${party} (${fmt.money(amount, currency)}, dated ${fmt.date(day)}). It cannot be undone.`;
      if (!card.question.startsWith(expected) || agent.requests.length > 0)
        wrong.push({
          i,
          style,
          args,
          record: target.record,
          expected,
          got: card.question,
          reads: agent.requests,
        });
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });

  it('a payment against the record names it with its party, in its currency', async () => {
    const wrong: unknown[] = [];
    for (const { i, style, callStyle, target, list } of all) {
      const tool = STYLES[callStyle](['record', 'payment']);
      const args = {
        [STYLES[callStyle]([...target.noun, 'id'])]: target.idValue,
        [STYLES[callStyle](['amount'])]: 500,
      };
      const agent = afterListing(style, target.noun, list, tool, args);
      const card = confirmationCard(tool, args, 1, { lookups: await lookUp(agent.run, tool, args) });
      const { number, party, amount, currency, day } = target.facts;
      const expected = `Confirm: record the payment of ${fmt.money(500, currency)} for ${party}, against ${target.noun.join(' ')} ${number} (${fmt.money(amount, currency)}, dated ${fmt.date(day)})?`;
      if (card.question !== expected || agent.requests.length > 0)
        wrong.push({ i, style, args, record: target.record, expected, got: card.question });
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });

  it('a record the books do not hold is said so plainly, with the value sent when a person can read it', async () => {
    const wrong: unknown[] = [];
    for (const { i, style, callStyle, target, list } of all) {
      const others = list.filter((record) => record !== target.record);
      const tool = STYLES[callStyle](['void', ...target.noun]);
      const args = { [STYLES[callStyle](target.idWords)]: target.idValue };
      const agent = afterListing(style, target.noun, others, tool, args);
      const card = confirmationCard(tool, args, 3, { lookups: await lookUp(agent.run, tool, args) });
      const value = String(target.idValue);
      const readable = /[A-Za-z]/.test(value) && !/^(in_|[0-9a-f]{8}-)/.test(value);
      const plain = card.question.includes(
        `I could not find this ${target.noun.join(' ')} in the books: the books have no such record`,
      );
      if (!plain || card.question.includes(value) !== readable || card.question.includes(target.facts.party))
        wrong.push({ i, style, args, got: card.question });
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });
});
