import { describe, expect, it } from 'vitest';
import { reverseGuardrails } from '../src/answer/guardrails.ts';
import { guardOutput, stripIds } from '../src/answer/output-guard.ts';

const id = '95b16e3d-abe3-498c-9a4a-b421e9ae35aa';
const describeTool = (t: string) => t.replace(/_/g, ' ');

describe('output guardrails', () => {
  it('drops a table column that holds ids and any id left in prose', () => {
    const out = stripIds(`Invoice ${id} is due.\n| Id | Number |\n| --- | --- |\n| ${id} | INV-1 |`);
    expect(out).not.toContain(id);
    expect(out).toContain('| Number |');
    expect(out).toContain('| INV-1 |');
    expect(out).not.toContain('| Id |');
  });

  it('strips card blocks and technical errors', () => {
    const out = guardOutput('Here you go.\n```card\n{"x":1}\n```\nTypeError: cannot read x of undefined');
    expect(out).not.toContain('```card');
    expect(out).not.toContain('TypeError');
  });
});

describe("reverse guardrails: an answer is honest about the turn's writes", () => {
  it('removes a success claim no write backs', () => {
    const r = reverseGuardrails('✅ Payment of ₹5,000 recorded successfully.', [], describeTool);
    expect(r.guardrails).toEqual(['hallucinated_success_stripped']);
    expect(r.text).not.toMatch(/✅|recorded/);
  });

  it('corrects a failure claim when the write succeeded', () => {
    const r = reverseGuardrails(
      'Sorry, the payment failed.',
      [{ tool: 'create_payment', success: true }],
      describeTool,
    );
    expect(r.guardrails).toEqual(['false_failure_overridden']);
    expect(r.text).toMatch(/^✅ Done: I did create payment/);
  });

  it('reports a write whose outcome is unknown as neither done nor not done until a read checked it', () => {
    const lost = { tool: 'create_payment', success: false, unknown: true };
    for (const claim of ['✅ Payment of ₹5,000 recorded successfully.', 'Sorry, the payment failed.']) {
      const r = reverseGuardrails(claim, [lost], describeTool);
      expect(r.guardrails).toEqual(['unverified_outcome_stripped']);
      expect(r.text).toMatch(/can't tell whether it was applied/);
      expect(r.text).not.toMatch(/nothing was changed|failed|✅/);
    }
    // Once a read of the payments ran, the answer may say what it showed.
    const checked = { ...lost, checked: true };
    expect(reverseGuardrails('The payment was recorded.', [checked], describeTool)).toEqual({
      text: 'The payment was recorded.',
      guardrails: [],
    });
    expect(reverseGuardrails('It did not go through.', [checked], describeTool).guardrails).toEqual([]);
  });

  it('leaves an honest answer alone', () => {
    expect(
      reverseGuardrails(
        'Payment recorded successfully.',
        [{ tool: 'create_payment', success: true }],
        describeTool,
      ),
    ).toEqual({ text: 'Payment recorded successfully.', guardrails: [] });
    expect(reverseGuardrails('Here are your invoices.', [], describeTool).guardrails).toEqual([]);
  });
});

describe('a failed write is never reported as done, whatever its verb', () => {
  const failed = (tool: string) => [{ tool, success: false }];

  it.each([
    ['revert-timesheet', 'Timesheet TS-4 reverted.'],
    ['approve-timesheet', 'I have approved the timesheet for March.'],
    ['receive_payment', 'The payment of ₹5,000 from Acme was received.'],
    ['books__post_journal', 'Journal JE-12 posted to the ledger.'],
    ['invoices.create', '✅ The invoice has been created.'],
    ['writeOffInvoice', 'INV-9 has been written off.'],
    ['payments.create', 'Payment recorded successfully.'],
    ['send_invoice', 'Invoice INV-3 sent to Acme.'],
    ['createTransfer', 'Transferred ₹10,000 to the savings account.'],
  ])('%s failed, and "%s" is replaced', (tool, claim) => {
    const r = reverseGuardrails(claim, failed(tool), describeTool);
    expect(r.guardrails).toEqual(['hallucinated_success_stripped']);
    expect(r.text).not.toBe(claim);
    expect(r.text).toMatch(/couldn't .*nothing was changed/);
  });

  it.each([
    ['revert-timesheet', "I couldn't revert the timesheet: the server said it is locked."],
    ['approve-timesheet', 'The timesheet was not approved: it has no lines.'],
    ['receive_payment', "The payment hasn't been received: the account was not found."],
    ['books__post_journal', 'Nothing was posted.'],
  ])('%s failed, and the honest "%s" stands', (tool, honest) => {
    expect(reverseGuardrails(honest, failed(tool), describeTool)).toEqual({ text: honest, guardrails: [] });
  });
});

describe('the reverse guardrail speaks only to writes the turn attempted or claimed', () => {
  const read = (tool: string) => ({ results: [{ tool, success: true }] });

  it.each([
    'INV-0042 was sent to Acme on 12/03/2026.',
    '✅ INV-0042 is fully paid.',
    'Status: ✅ Paid',
    'Bill BILL-0007 was approved last week and is due on 09/04/2026.',
    'INV-0042 Acme ko 12/03/2026 ko bhej diya gaya tha.',
    'पिछले महीने 3 बिल मंज़ूर किए गए थे।',
  ])('a read answer passes untouched: %s', (text) => {
    expect(reverseGuardrails(text, [], describeTool, read('get_invoice'))).toEqual({ text, guardrails: [] });
  });

  it("still replaces the assistant's own report of a change no write backs, next to a read", () => {
    for (const claim of [
      "I've voided INV-0042 as requested.",
      'Maine INV-0042 void kar diya hai.',
      'Payment recorded ✅',
    ])
      expect(reverseGuardrails(claim, [], describeTool, read('get_invoice')).guardrails, claim).toEqual([
        'hallucinated_success_stripped',
      ]);
    // Without any read, an impersonal "has been created" has nothing it could describe.
    expect(reverseGuardrails('The bill has been created.', [], describeTool).guardrails).toEqual([
      'hallucinated_success_stripped',
    ]);
    expect(
      reverseGuardrails('The bill has been created.', [], describeTool, read('get_bills')).guardrails,
    ).toEqual([]);
  });

  it('names a write the validator stopped, or one waiting for confirmation, in the honest answer', () => {
    const blocked = reverseGuardrails('Invoice INV-0060 created successfully!', [], describeTool, {
      results: [{ tool: 'create_invoice', success: false }],
    });
    expect(blocked).toEqual({
      text: expect.stringMatching(/^I couldn't create invoice, so nothing was changed/),
      guardrails: ['hallucinated_success_stripped'],
    });
    const waiting = reverseGuardrails('INV-0042 has been voided.', [], describeTool, {
      awaiting: ['void_invoice'],
    });
    expect(waiting.text).toMatch(/need your confirmation first/);
    expect(
      reverseGuardrails('I will void INV-0042 once you confirm.', [], describeTool, {
        awaiting: ['void_invoice'],
      }),
    ).toEqual({ text: 'I will void INV-0042 once you confirm.', guardrails: [] });
  });

  it('corrects the part of an answer that claims a failed write when another write succeeded', () => {
    const writes = [
      { tool: 'create_invoice', success: true },
      { tool: 'send_invoice', success: false },
    ];
    const r = reverseGuardrails('✅ Invoice INV-0060 created and sent to Acme.', writes, describeTool);
    expect(r.guardrails).toEqual(['hallucinated_success_stripped']);
    expect(r.text).toBe(
      "✅ Done: I did create invoice.\nI couldn't send invoice, so that part was not done.",
    );
    const honest = "✅ Invoice INV-0060 created. I couldn't email it: Acme has no email on file.";
    expect(reverseGuardrails(honest, writes, describeTool)).toEqual({ text: honest, guardrails: [] });
  });
});
