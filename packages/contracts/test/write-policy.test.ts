import { describe, expect, it } from 'vitest';
import {
  ApprovalPolicyError,
  approvalNeeded,
  type PersonRole,
  parseApprovalPolicy,
  type WriteClass,
  writeClass,
} from '../src/index.ts';

/**
 * Write classes and approval policies. Classes are checked on names from real accounting servers
 * and on a grammar of names in every naming style, whose expected class is written here from the
 * verb and object groups, apart from the lexicon the code reads.
 */

describe('the class of a write, from its name', () => {
  const REAL: [string, WriteClass][] = [
    ['create_invoice', 'document'],
    ['createBill', 'document'],
    ['xero__create_credit_note', 'document'],
    ['zoho_books.estimates.create', 'document'],
    ['create_purchase_order', 'document'],
    ['create_expense', 'document'],
    ['record_payment', 'payment'],
    ['receive_payment', 'payment'],
    ['create_customer_payment', 'payment'],
    ['pay_bill', 'payment'],
    ['refund_invoice', 'payment'],
    ['mark_invoice_as_paid', 'payment'],
    ['update_payment', 'payment'],
    ['transfer_funds_to_vendor', 'payment'],
    ['create_bank_transfer', 'transfer'],
    ['transfer_funds', 'transfer'],
    ['record_contra_entry', 'transfer'],
    ['create_journal_entry', 'journal'],
    ['post_manual_journal', 'journal'],
    ['create_vendor', 'party'],
    ['add-contact', 'party'],
    ['CreateCustomer', 'party'],
    ['updateCustomer', 'edit'],
    ['update_invoice', 'edit'],
    ['rename_item', 'edit'],
    ['void_invoice', 'destructive'],
    ['delete_bill', 'destructive'],
    ['write_off_invoice', 'destructive'],
    ['file_gstr1_return', 'destructive'],
    ['send_invoice', 'send'],
    ['email_estimate', 'send'],
    ['invoices_send', 'send'],
    ['invoice.email', 'send'],
    ['update_customer_email', 'edit'],
    ['set_contact_email', 'edit'],
  ];
  it.each(REAL)('%s is a %s', (name, expected) => {
    expect(writeClass(name)).toBe(expected);
  });

  it('reads the description when the name says too little', () => {
    expect(writeClass('do_it', 'Records a payment received from a customer. Use for receipts.')).toBe(
      'payment',
    );
    expect(writeClass('run_action', 'Voids the given invoice')).toBe('destructive');
    expect(writeClass('execute', 'Sends the estimate to the customer by email')).toBe('send');
    // A name that says enough wins over its description.
    expect(writeClass('create_invoice', 'Deletes nothing; creates an invoice')).toBe('document');
  });

  const VERBS = {
    make: ['create', 'add', 'record', 'new', 'post'],
    destroy: ['void', 'delete', 'cancel', 'write off'],
    send: ['send', 'email'],
    edit: ['update', 'edit', 'modify', 'rename'],
  } as const;
  const OBJECTS: Record<'payment' | 'transfer' | 'journal' | 'party' | 'document', string[]> = {
    payment: ['payment', 'customer payment', 'vendor payment', 'refund', 'receipt'],
    transfer: ['bank transfer', 'fund transfer'],
    journal: ['journal', 'journal entry', 'manual journal', 'adjustment'],
    party: ['customer', 'vendor', 'supplier', 'contact'],
    document: ['invoice', 'bill', 'credit note', 'purchase order', 'estimate', 'sales order'],
  };
  const STYLES: ((verb: string[], object: string[]) => string)[] = [
    (v, o) => [...v, ...o].join('_'),
    (v, o) => [...v, ...o].map((w, i) => (i === 0 ? w : w[0]?.toUpperCase() + w.slice(1))).join(''),
    (v, o) => [...v, ...o].map((w) => w[0]?.toUpperCase() + w.slice(1)).join(''),
    (v, o) => [...v, ...o].join('-'),
    (v, o) => `${o.join('_')}.${v.join('_')}`,
    (v, o) => `acme_books__${[...v, ...o].join('_')}`,
  ];
  /** The class a (verb group, object group) pair must give, decided here. */
  function expected(verbGroup: keyof typeof VERBS, objectGroup: keyof typeof OBJECTS): WriteClass {
    if (verbGroup === 'destroy') return 'destructive';
    if (verbGroup === 'send') return 'send';
    if (objectGroup === 'payment') return 'payment';
    if (objectGroup === 'transfer') return 'transfer';
    if (verbGroup === 'edit') return 'edit';
    return objectGroup;
  }
  it('classes every generated name by its verb and object, in every naming style', () => {
    let checked = 0;
    const wrong: string[] = [];
    for (const [verbGroup, verbs] of Object.entries(VERBS) as [keyof typeof VERBS, readonly string[]][])
      for (const [objectGroup, objects] of Object.entries(OBJECTS) as [keyof typeof OBJECTS, string[]][])
        for (const verb of verbs)
          for (const object of objects)
            for (const style of STYLES) {
              const name = style(verb.split(' '), object.split(' '));
              const want = expected(verbGroup, objectGroup);
              checked += 1;
              if (writeClass(name) !== want) wrong.push(`${name}: ${writeClass(name)}, not ${want}`);
            }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(1500);
  });
});

const EXAMPLE = {
  rules: [
    { match: { class: 'payment', minAmount: 100000 }, approvers: 1, roles: ['approver', 'owner'] },
    { match: { class: 'destructive' }, approvers: 1, roles: ['approver'] },
    { match: { tool: 'file_*' }, approvers: 2, roles: ['owner'] },
  ],
  limits: { maker: { maxAmount: 50000 } },
};

describe('an approval policy', () => {
  it('is refused naming the entry that is wrong', () => {
    const bad: [unknown, RegExp][] = [
      [
        { rules: [{ match: {}, approvers: 1, roles: ['approver'] }] },
        /^rules\[0\]\.match: a rule matches a class or a tool/,
      ],
      [
        { rules: [{ match: { class: 'payments' }, approvers: 1, roles: ['approver'] }] },
        /^rules\[0\]\.match\.class: /,
      ],
      [
        { rules: [EXAMPLE.rules[0], { match: { class: 'send' }, approvers: 0, roles: ['approver'] }] },
        /^rules\[1\]\.approvers: /,
      ],
      [{ rules: [{ match: { class: 'send' }, approvers: 1, roles: ['boss'] }] }, /^rules\[0\]\.roles\[0\]: /],
      [{ rules: [{ match: { class: 'send' }, approvers: 1, roles: [] }] }, /^rules\[0\]\.roles: /],
      [
        { rules: [{ match: { class: 'send', minAmount: -5 }, approvers: 1, roles: ['owner'] }] },
        /^rules\[0\]\.match\.minAmount: /,
      ],
      [
        { rules: [{ match: { class: 'send' }, approver: 1, approvers: 1, roles: ['owner'] }] },
        /^rules\[0\]: .*approver/,
      ],
      [{ limits: { maker: { maxAmount: '50k' } } }, /^limits\.maker\.maxAmount: /],
      [{ limits: { boss: { maxAmount: 5 } } }, /^limits/],
      [{ rule: [] }, /rule/],
      ['rules: []', /^the policy: /],
    ];
    for (const [policy, message] of bad) {
      const error = (() => {
        try {
          parseApprovalPolicy(policy);
        } catch (e) {
          return e;
        }
      })();
      expect(error, JSON.stringify(policy)).toBeInstanceOf(ApprovalPolicyError);
      expect((error as Error).message, JSON.stringify(policy)).toMatch(message);
    }
  });

  const policy = parseApprovalPolicy(EXAMPLE);
  const write = (cls: WriteClass, amount?: number, tool = 'record_payment') => ({ tool, class: cls, amount });

  it('decides as the example says', () => {
    expect(approvalNeeded(policy, write('payment', 200_000), ['maker'])).toMatchObject({
      approvers: 1,
      roles: ['approver', 'owner'],
    });
    expect(approvalNeeded(policy, write('payment', 40_000), ['maker']).approvers).toBe(0);
    // Over the maker's limit, with no rule: one approver.
    expect(approvalNeeded(policy, write('document', 60_000, 'create_invoice'), ['maker'])).toMatchObject({
      approvers: 1,
    });
    // An owner has no limit, but rules still ask for people other than the maker.
    expect(approvalNeeded(policy, write('document', 60_000, 'create_invoice'), ['owner']).approvers).toBe(0);
    expect(approvalNeeded(policy, write('payment', 200_000), ['owner']).approvers).toBe(1);
    expect(approvalNeeded(policy, write('destructive', 10, 'void_invoice'), ['owner'])).toMatchObject({
      approvers: 1,
      roles: ['approver'],
    });
    expect(approvalNeeded(policy, write('destructive', 10, 'file_gstr3b'), ['maker'])).toMatchObject({
      approvers: 2,
      roles: ['owner'],
    });
    expect(approvalNeeded(undefined, write('payment', 10_000_000), ['maker']).approvers).toBe(0);
  });

  it('never asks fewer people for more money, nor for an amount it could not read', () => {
    const roles: PersonRole[][] = [['maker'], ['owner'], ['maker', 'approver'], ['admin']];
    const classes: WriteClass[] = ['payment', 'document', 'transfer', 'edit'];
    for (const makerRoles of roles)
      for (const cls of classes) {
        const unknown = approvalNeeded(policy, write(cls, undefined), makerRoles).approvers;
        let previous = 0;
        for (let amount = 0; amount <= 400_000; amount += 2_500) {
          const need = approvalNeeded(policy, write(cls, amount), makerRoles).approvers;
          expect(need, `${cls} ${amount} by ${makerRoles}`).toBeGreaterThanOrEqual(previous);
          expect(unknown, `${cls} unknown vs ${amount}`).toBeGreaterThanOrEqual(need);
          previous = need;
        }
      }
  });

  it('matches a party by its name, whatever its case and punctuation', () => {
    const withParty = parseApprovalPolicy({
      rules: [{ match: { class: 'any', party: 'Acme Corp. Pvt Ltd' }, approvers: 1, roles: ['owner'] }],
    });
    const need = (party?: string) =>
      approvalNeeded(withParty, { tool: 'pay_bill', class: 'payment', amount: 5, party }, ['owner'])
        .approvers;
    expect(need('ACME CORP PVT. LTD.')).toBe(1);
    expect(need('acme corp pvt ltd')).toBe(1);
    expect(need('Acme Industries')).toBe(0);
  });
});
