import { classifyTool, type ToolAccess, type ToolDefinition } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { SchemaCompiler, validateCall } from '../src/app.ts';

const compiler = new SchemaCompiler();
type Props = Record<string, unknown>;

/** A tool as the executor's registry sends it: classified by its name, with a closed schema. */
function tool(
  name: string,
  properties: Props,
  access?: Partial<ToolAccess>,
  required: string[] = [],
): ToolDefinition {
  const classified = { ...classifyTool(name), ...access };
  return {
    name,
    isWrite: classified.kind === 'write',
    access: classified,
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
  };
}

const check = (definition: ToolDefinition, args: unknown) =>
  validateCall(definition, { tool: definition.name, args, callId: 'c', attempt: 1 }, compiler, new Set());

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** Tool names in every style the rules by meaning read: the verb and the nouns of one tool. */
const NAME_STYLES = {
  snake: (verb: string, nouns: string[]) => [verb, ...nouns].join('_'),
  kebab: (verb: string, nouns: string[]) => [verb, ...nouns].join('-'),
  camel: (verb: string, nouns: string[]) => verb + nouns.map(cap).join(''),
  dotted: (verb: string, nouns: string[]) => `${nouns.join('_')}s.${verb}`,
  prefixed: (verb: string, nouns: string[]) => `books__${[verb, ...nouns].join('_')}`,
} as const;

/** Field names in the styles real APIs use. */
const FIELD_STYLES = {
  pascal: (...words: string[]) => words.map(cap).join(''),
  camel: (...words: string[]) => words[0] + words.slice(1).map(cap).join(''),
  snake: (...words: string[]) => words.join('_'),
} as const;

const any = {};
const list = { type: 'array', items: { type: 'object', additionalProperties: true } };
const money = { type: 'number' };

describe.each(Object.entries(NAME_STYLES))('write rules for %s tool names', (_style, name) => {
  describe.each(Object.entries(FIELD_STYLES))('with %s fields', (_fieldStyle, f) => {
    const fields = {
      [f('account', 'id')]: any,
      [f('amount')]: money,
      [f('applications')]: list,
      [f('reference')]: any,
    };
    const payment = tool(name('create', ['payment']), fields, undefined, [f('account', 'id'), f('amount')]);
    const paid = {
      [f('account', 'id')]: 'acc-1',
      [f('amount')]: 500,
      [f('applications')]: [{ invoice: 'inv-1', amount: 500 }],
    };

    it('passes a whole payment and blocks one without its account, naming the field as the schema does', () => {
      expect(check(payment, paid).status).toBe('passed');
      const { [f('account', 'id')]: _account, ...rest } = paid;
      const result = check(payment, rest);
      expect(result).toMatchObject({ status: 'blocked', missingFields: [f('account', 'id')] });
      expect(result.message).toBe(`Missing: ${f('account', 'id')}.`);
    });

    it('does not demand the account where the schema leaves it optional, and still checks what is sent', () => {
      const optional = tool(name('create', ['payment']), fields, undefined, [f('amount')]);
      const { [f('account', 'id')]: _account, ...rest } = paid;
      expect(check(optional, rest)).toMatchObject({ status: 'passed', args: rest });
      expect(check(optional, { [f('amount')]: 500 }).status).toBe('passed');
      expect(check(optional, { ...rest, [f('amount')]: 0 }).issues).toEqual([
        expect.objectContaining({ field: f('amount'), code: 'too_small' }),
      ]);
      expect(check(optional, { ...rest, [f('applications')]: [] }).missingFields).toEqual([
        f('applications'),
      ]);
    });

    it('blocks a payment of zero', () => {
      expect(check(payment, { ...paid, [f('amount')]: 0 }).issues).toEqual([
        expect.objectContaining({ field: f('amount'), code: 'too_small', expected: 'number > 0' }),
      ]);
    });

    it('blocks an invoice with no lines', () => {
      const fields = { [f('customer', 'id')]: any, [f('line', 'items')]: list };
      const invoice = tool(name('create', ['invoice']), fields, undefined, [
        f('customer', 'id'),
        f('line', 'items'),
      ]);
      const lines = [{ description: 'Design work', quantity: 1, unit_price: 100 }];
      expect(check(invoice, { [f('customer', 'id')]: 'c-1', [f('line', 'items')]: lines }).status).toBe(
        'passed',
      );
      expect(check(invoice, { [f('customer', 'id')]: 'c-1', [f('line', 'items')]: [] })).toMatchObject({
        status: 'blocked',
        missingFields: [f('line', 'items')],
      });
      expect(check(invoice, { [f('line', 'items')]: lines }).missingFields).toEqual([f('customer', 'id')]);
      // A draft without lines, where the schema allows one: sent lines must still not be empty.
      const draft = tool(name('create', ['invoice']), fields, undefined, [f('customer', 'id')]);
      expect(check(draft, { [f('customer', 'id')]: 'c-1' }).status).toBe('passed');
      expect(check(draft, { [f('customer', 'id')]: 'c-1', [f('line', 'items')]: [] }).missingFields).toEqual([
        f('line', 'items'),
      ]);
    });

    it('blocks a transfer of zero and one without its accounts', () => {
      const accounts = [f('from', 'account', 'id'), f('to', 'account', 'id')];
      const transfer = tool(
        name('create', ['transfer']),
        { [accounts[0] as string]: any, [accounts[1] as string]: any, [f('amount')]: money },
        undefined,
        accounts,
      );
      const whole = { [f('from', 'account', 'id')]: 'a', [f('to', 'account', 'id')]: 'b', [f('amount')]: 10 };
      expect(check(transfer, whole).status).toBe('passed');
      expect(check(transfer, { ...whole, [f('amount')]: 0 }).issues).toEqual([
        expect.objectContaining({ field: f('amount'), code: 'too_small' }),
      ]);
      expect(check(transfer, { [f('amount')]: 10 }).missingFields).toEqual([
        f('from', 'account', 'id'),
        f('to', 'account', 'id'),
      ]);
    });

    it('blocks a delete without the id of its record', () => {
      const remove = tool(
        name('delete', ['invoice']),
        { [f('invoice', 'id')]: any, [f('reason')]: any },
        undefined,
        [f('invoice', 'id')],
      );
      expect(check(remove, { [f('reason')]: 'duplicate' })).toMatchObject({
        status: 'blocked',
        isWrite: true,
        tier: 3,
        missingFields: [f('invoice', 'id')],
      });
      expect(check(remove, { [f('invoice', 'id')]: 'inv-1' }).status).toBe('passed');
      const bare = tool(name('void', ['bill']), { id: any }, undefined, ['id']);
      expect(check(bare, {}).missingFields).toEqual(['id']);
      expect(check(tool(name('void', ['bill']), { id: any }), {}).status).toBe('passed');
    });
  });
});

describe('journals in every shape', () => {
  type Side = 'debit' | 'credit';
  const SHAPES: Record<string, (side: Side, amount: number) => Props> = {
    'DebitAmount/CreditAmount': (side, amount) => ({
      [side === 'debit' ? 'DebitAmount' : 'CreditAmount']: amount,
    }),
    'debit/credit': (side, amount) => ({ [side]: amount }),
    debit_amount: (side, amount) => ({ [`${side}_amount`]: amount }),
    'dr/cr': (side, amount) => ({ [side === 'debit' ? 'dr' : 'cr']: amount }),
    'PostingType Debit/Credit': (side, amount) => ({ Amount: amount, PostingType: cap(side) }),
    'type DR/CR': (side, amount) => ({ amount, type: side === 'debit' ? 'DR' : 'CR' }),
    'side d/c': (side, amount) => ({ amount, side: side.charAt(0) }),
    'drCr debit/credit': (side, amount) => ({ amount, drCr: side }),
    'entryType CREDIT/DEBIT': (side, amount) => ({ amount, entryType: side.toUpperCase() }),
    isDebit: (side, amount) => ({ amount, isDebit: side === 'debit' }),
    isCredit: (side, amount) => ({ amount, isCredit: side === 'credit' }),
    'signed LineAmount': (side, amount) => ({ LineAmount: side === 'debit' ? amount : -amount }),
    'signed amount': (side, amount) => ({ amount: side === 'debit' ? amount : -amount }),
    'QuickBooks line detail': (side, amount) => ({
      Amount: amount,
      JournalEntryLineDetail: { PostingType: cap(side), AccountRef: { value: '7' } },
    }),
  };
  const JOURNALS: [string, string][] = [
    ['create_journal_entry', 'Lines'],
    ['books__post_journal', 'lines'],
    ['createManualJournal', 'journalLines'],
    ['journals.create', 'line_items'],
    ['add-journal', 'entries'],
    ['record_journal', 'manualJournalLines'],
    ['createJournalEntry', 'Line'],
  ];
  const cases = JOURNALS.flatMap(([name, field]) =>
    Object.entries(SHAPES).map(([shape, line]) => ({ name, field, shape, line })),
  );

  it.each(cases)(
    '$name ($field, $shape): balanced passes, unbalanced is blocked',
    ({ name, field, line }) => {
      const journal = tool(name, { [field]: list, narration: any });
      const entry = (debit: number, credit: number) => ({
        [field]: [
          { account: '1200', ...line('debit', debit) },
          { account: '4000', ...line('credit', credit) },
        ],
      });
      expect(check(journal, entry(250.5, 250.5)).status).toBe('passed');
      const unbalanced = check(journal, entry(300, 250));
      expect(unbalanced.status).toBe('blocked');
      expect(unbalanced.issues).toEqual([
        {
          field,
          expected: 'total debits equal to total credits',
          received: 'debits 300, credits 250',
          code: 'unbalanced',
          message: 'Debits (300) must equal Credits (250).',
        },
      ]);
      expect(check(journal, { [field]: [line('debit', 5)] }).issues).toEqual([
        expect.objectContaining({
          field,
          code: 'too_small',
          message: 'Journal entry requires at least 2 lines.',
        }),
      ]);
      expect(check(journal, { [field]: [] }).missingFields).toEqual([field]);
    },
  );

  it('allows negative amounts only as the credits of a signed journal', () => {
    const xero = tool('createManualJournal', { JournalLines: list, Narration: any });
    const lines = [{ LineAmount: 70 }, { LineAmount: 30 }, { LineAmount: -100 }];
    expect(check(xero, { JournalLines: lines })).toMatchObject({ status: 'passed', issues: [] });
    // Not a journal: the same lines may not be negative.
    const expense = tool('create_expense_claim', { lines: list });
    expect(check(expense, { lines }).issues).toEqual([
      expect.objectContaining({ field: 'lines[2].LineAmount', code: 'too_small' }),
    ]);
    // A journal whose lines have debit and credit columns keeps them not negative.
    const sage = tool('create_journal', { journal_lines: list });
    const negative = check(sage, { journal_lines: [{ debit: -10 }, { credit: -10 }] });
    expect(negative.issues.map((i) => [i.field, i.code])).toEqual([
      ['journal_lines[0].debit', 'too_small'],
      ['journal_lines[1].credit', 'too_small'],
    ]);
  });

  it('blocks a posting type that is neither debit nor credit, naming the line', () => {
    const journal = tool('journals.create', { lines: list });
    const result = check(journal, {
      lines: [
        { amount: 10, postingType: 'Debit' },
        { amount: 10, postingType: 'Sideways' },
      ],
    });
    expect(result.status).toBe('blocked');
    expect(result.issues).toEqual([
      expect.objectContaining({
        field: 'lines[1].postingType',
        code: 'invalid_posting_type',
        received: '"Sideways"',
        message: 'Line 2 of lines has the posting type "Sideways"; it must say Debit or Credit (DR/CR, D/C).',
      }),
    ]);
  });
});

describe('which writes get which rules', () => {
  const paymentSchema = { AccountId: any, Amount: money, Applications: list };

  it('reads a payment in every way payments are named', () => {
    for (const name of [
      'create_payment',
      'receive_payment',
      'receivePayment',
      'payments.create',
      'pay_bill',
      'create_bill_payment',
      'books__record-customer-payment',
    ]) {
      const payment = tool(name, paymentSchema);
      const result = check(payment, { AccountId: 'a', Amount: 0, Applications: [] });
      expect(result.missingFields, name).toEqual(['Applications']);
      expect(result.message, name).toBe(
        "Missing: Applications[]. Field 'Amount' must be greater than 0, but received 0.",
      );
      // Nothing the schema leaves optional is demanded.
      expect(check(payment, { Amount: 5 }).status, name).toBe('passed');
      const required = tool(name, paymentSchema, undefined, ['AccountId', 'Amount', 'Applications']);
      expect(check(required, {}).message, name).toBe('Missing: AccountId, Amount, Applications[].');
    }
  });

  it('reads a transfer by its verb too', () => {
    for (const name of ['transfer_funds', 'transferMoney', 'books__create-bank-transfer']) {
      const transfer = tool(name, { FromAccountRef: any, ToAccountRef: any, Amount: money });
      expect(check(transfer, { Amount: 0 }).missingFields, name).toEqual([]);
      expect(check(transfer, { FromAccountRef: 'a', ToAccountRef: 'b', Amount: 0 }).issues, name).toEqual([
        expect.objectContaining({ field: 'Amount', code: 'too_small' }),
      ]);
    }
  });

  it('finds the fields one level down, in an object-valued property', () => {
    const nested = tool('createPayment', {
      payment: {
        type: 'object',
        properties: { account_ref: any, amount: money },
        required: ['account_ref'],
        additionalProperties: false,
      },
    });
    expect(check(nested, { payment: { amount: 5 } }).missingFields).toEqual(['payment.account_ref']);
    expect(check(nested, {}).status).toBe('passed');
    expect(check(nested, { payment: { account_ref: 'a', amount: 0 } }).issues).toEqual([
      expect.objectContaining({ field: 'payment.amount', code: 'too_small' }),
    ]);
  });

  it('never demands a field the schema has no place for', () => {
    const bare = tool('create_payment', { Amount: money, Reference: any });
    expect(check(bare, { Amount: 5 }).status).toBe('passed');
    const send = tool('send-invoice', { invoiceId: any, toEmail: any }, undefined, ['invoiceId', 'toEmail']);
    expect(check(send, {})).toMatchObject({ missingFields: ['invoiceId', 'toEmail'], tier: 2 });
    expect(check(tool('send-invoice', { invoiceId: any, toEmail: any }), {})).toMatchObject({
      status: 'passed',
      tier: 2,
    });
    expect(check(tool('send-invoice', { invoiceId: any }), { invoiceId: 'i' }).status).toBe('passed');
  });

  it('never subjects a read to write rules', () => {
    for (const name of [
      'get_payment',
      'list-payments',
      'payments.list',
      'books__get_journal',
      'searchInvoices',
    ]) {
      const read = tool(name, { ...paymentSchema, Lines: list, total: money });
      expect(read.isWrite, name).toBe(false);
      const result = check(read, { Amount: -5, total: -1, Lines: [{ DebitAmount: 5 }, { Credit: 1 }] });
      expect(result, name).toMatchObject({ status: 'passed', isWrite: false, tier: 0 });
    }
  });

  it('treats a verb it does not know as a write, with no noun rule it does not match', () => {
    for (const name of ['reticulate_payment', 'frobnicate-invoice', 'journals.splice']) {
      const unknown = tool(name, { ...paymentSchema, ContactId: any, Lines: list, Amount: money });
      const result = check(unknown, { Lines: [{ DebitAmount: 5 }], Amount: 0 });
      expect(result, name).toMatchObject({ status: 'passed', isWrite: true, tier: 1 });
      // Still a write: amounts may not be negative.
      expect(check(unknown, { Amount: -1 }).status, name).toBe('blocked');
    }
  });

  it('knows amounts, dates and currencies by their words in any style', () => {
    const expense = tool('create_expense', {
      line_items: list,
      unitAmount: money,
      tax_amount: money,
      total: money,
      quantity: money,
      itemId: any,
      due_date: any,
      currency_code: any,
    });
    for (const field of ['unitAmount', 'tax_amount', 'total'])
      expect(check(expense, { [field]: -1 }).issues, field).toEqual([
        expect.objectContaining({ field, code: 'too_small' }),
      ]);
    expect(check(expense, { line_items: [{ unit_price: -2, lineAmount: -3 }] }).issues).toHaveLength(2);
    expect(check(expense, { quantity: -1, itemId: 'x' }).status).toBe('passed');
    expect(check(expense, { due_date: '2025-02-30' }).issues[0]).toMatchObject({ code: 'invalid_date' });
    expect(check(expense, { currency_code: 'RUPEES' }).issues[0]).toMatchObject({ code: 'invalid_currency' });
    // A field the schema declares as text is not taken for money.
    const text = tool('create_memo', { total: { type: 'string' } });
    expect(check(text, { total: 'about -5' }).status).toBe('passed');
  });

  it('takes the tier from the registry, else from the verb', () => {
    expect(check(tool('books__void_invoice', { id: any }), { id: 'x' }).tier).toBe(3);
    expect(check(tool('invoices.update', { id: any }), { id: 'x' }).tier).toBe(2);
    expect(check(tool('createInvoice', {}), {}).tier).toBe(1);
    expect(check(tool('approve-bill', { billId: any }), { billId: 'b' }).tier).toBe(3);
    expect(check(tool('create_customer', {}, { tier: 3 }), {}).tier).toBe(3);
    const { access: _access, ...unclassified } = tool('delete_contact', { ContactId: any });
    expect(check(unclassified, { ContactId: 'c' }).tier).toBe(3);
  });
});

describe("the operator's policy rules", () => {
  const widget = (rules: ToolAccess['rules']) =>
    tool(
      'frobnicate_widget',
      { WidgetRef: any, widget_ref: any, parts: list, fee: money, postings: list },
      {
        ...(rules ? { rules } : {}),
      },
    );

  it('requires fields by exact name', () => {
    expect(check(widget(undefined), {}).status).toBe('passed');
    const result = check(widget({ required: ['WidgetRef'] }), { widget_ref: 'w' });
    expect(result).toMatchObject({ status: 'blocked', missingFields: ['WidgetRef'] });
    // A name the schema cannot accept is never demanded.
    expect(check(widget({ required: ['Colour'] }), {}).status).toBe('passed');
  });

  it('wants non-empty lists by exact name', () => {
    expect(check(widget({ nonEmpty: ['parts'] }), { parts: [] }).missingFields).toEqual(['parts']);
    expect(check(widget({ nonEmpty: ['parts'] }), { parts: 'all' }).issues).toEqual([
      expect.objectContaining({ field: 'parts', code: 'invalid_type' }),
    ]);
    expect(check(widget({ nonEmpty: ['parts'] }), { parts: [{}] }).status).toBe('passed');
  });

  it('wants positive amounts by exact name', () => {
    expect(check(widget(undefined), { fee: 0 }).status).toBe('passed');
    expect(check(widget({ positive: ['fee'] }), { fee: 0 }).issues).toEqual([
      expect.objectContaining({ field: 'fee', code: 'too_small', expected: 'number > 0' }),
    ]);
  });

  it('balances a journal the names do not reveal', () => {
    const unbalanced = { postings: [{ amount: 5 }, { amount: -4 }] };
    expect(check(widget(undefined), unbalanced).status).toBe('blocked'); // -4 is a negative amount
    const result = check(widget({ balancedJournal: true }), unbalanced);
    expect(result.issues).toEqual([
      expect.objectContaining({
        field: 'postings',
        code: 'unbalanced',
        message: 'Debits (5) must equal Credits (4).',
      }),
    ]);
    expect(
      check(widget({ balancedJournal: true }), { postings: [{ amount: 5 }, { amount: -5 }] }).status,
    ).toBe('passed');
    expect(check(widget({ balancedJournal: true }), {}).missingFields).toEqual(['postings']);
  });
});
