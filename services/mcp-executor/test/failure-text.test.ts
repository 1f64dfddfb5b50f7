import { describe, expect, it } from 'vitest';
import { FAILURE_OBJECTS, FAILURE_TEXTS, reportedFailure } from '../src/failure-text.ts';
import type { CallResultLike } from '../src/result.ts';

const text = (t: string): CallResultLike => ({ content: [{ type: 'text', text: t }] });
const json = (value: unknown): CallResultLike => text(JSON.stringify(value));
const structured = (value: unknown): CallResultLike => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
});

/** Error answers with `isError` unset: [label, recogniser expected, result, message]. */
const failures: [string, string, CallResultLike, string | RegExp][] = [
  [
    'Xero MCP create-invoice',
    'error-prefix',
    text('Error creating invoice: contact not found'),
    'Error creating invoice: contact not found',
  ],
  ['generic Error:', 'error-prefix', text('Error: Contact ID is required'), 'Error: Contact ID is required'],
  ['log-style ERROR -', 'error-prefix', text('ERROR - Ledger "Sales" does not exist'), /^ERROR - Ledger/],
  [
    'markdown error',
    'error-prefix',
    text('❌ **Error:** amount must be positive'),
    /amount must be positive/,
  ],
  [
    'Failed to',
    'failed-prefix',
    text('Failed to create bill: vendor V-12 is archived'),
    /^Failed to create bill/,
  ],
  ['Failed:', 'failed-prefix', text('Failed: duplicate invoice number INV-0042'), /duplicate invoice number/],
  ['Unable to', 'cannot', text('Unable to post journal: period is locked'), /period is locked/],
  ['Could not', 'cannot', text('Could not find account with code 4000'), /account with code 4000/],
  ['Cannot', 'cannot', text('Cannot void a paid invoice'), 'Cannot void a paid invoice'],
  [
    'Xero vendor error',
    'vendor-error',
    text('Xero API error: A validation exception occurred'),
    /^Xero API error: A validation/,
  ],
  [
    'QuickBooks error code',
    'vendor-error',
    text('QuickBooks error 6240: Duplicate Name Exists Error'),
    /6240/,
  ],
  [
    'Validation failed',
    'subject-failed',
    text('Validation failed: LineItems[0].AccountCode is invalid'),
    /AccountCode/,
  ],
  ['Invalid', 'invalid', text('Invalid contact id'), 'Invalid contact id'],
  ['Not found:', 'not-found', text('Not found: invoice 9f1c'), 'Not found: invoice 9f1c'],
  ['does not exist', 'not-found', text('Invoice INV-9 does not exist.'), 'Invoice INV-9 does not exist.'],
  ['Unauthorized', 'denied', text('Unauthorized'), 'Unauthorized'],
  ['rate limit', 'denied', text('Too many requests to Xero. Please try again in a moment.'), /Too many/],
  ['Permission denied', 'denied', text('Permission denied: scope accounting.transactions missing'), /scope/],
  [
    'Xero auth text',
    'subject-failed',
    text('Authentication failed. Please check your Xero credentials.'),
    /Xero credentials/,
  ],
  [
    'axios',
    'subject-failed',
    text('Request failed with status code 400'),
    'Request failed with status code 400',
  ],
  ['HTTP 422', 'http-status', text('HTTP 422 Unprocessable Entity: TaxType is required'), /TaxType/],
  ['400 Bad Request', 'http-status', text('400 Bad Request'), '400 Bad Request'],
  [
    'An error occurred',
    'error-occurred',
    text('An error occurred while communicating with Xero.'),
    /communicating/,
  ],
  [
    'Python traceback',
    'traceback',
    text(
      'Traceback (most recent call last):\n  File "server.py", line 88, in create_invoice\n    raise ValueError(msg)\nValueError: customer CUST-3 not found',
    ),
    'ValueError: customer CUST-3 not found',
  ],
  ['McpError', 'exception', text('McpError: MCP error -32603: Internal error'), /Internal error/],
  ['Exception:', 'exception', text('Exception: Tally is not running on port 9000'), /Tally is not running/],
  [
    'Python SDK exception',
    'exception',
    text('xero_python.exceptions.AccountingBadRequestException: (400) Reason: Bad Request'),
    /Bad Request/,
  ],
  [
    'Tally XML import',
    'tally-xml',
    text(
      '<RESPONSE><CREATED>0</CREATED><ALTERED>0</ALTERED><ERRORS>1</ERRORS><LINEERROR>Voucher totals do not match! Dr: 1,000.00 Dr Cr: 900.00 Cr</LINEERROR></RESPONSE>',
    ),
    /^Voucher totals do not match/,
  ],
  ['{"error": string}', 'error-field', json({ error: 'Contact not found' }), 'Contact not found'],
  [
    '{"error": {message}}',
    'error-field',
    json({ error: { message: 'Invalid account code', code: 'VALIDATION' } }),
    'Invalid account code',
  ],
  [
    'OAuth error',
    'error-field',
    json({ error: 'invalid_grant', error_description: 'Refresh token expired' }),
    'Refresh token expired',
  ],
  [
    'GraphQL errors',
    'errors-field',
    json({ data: null, errors: [{ message: 'Vendor is inactive' }] }),
    'Vendor is inactive',
  ],
  ['Rails errors', 'errors-field', json({ errors: { name: ["can't be blank"] } }), "name: can't be blank"],
  [
    'QuickBooks Fault',
    'quickbooks-fault',
    json({
      Fault: {
        Error: [
          {
            Message: 'Duplicate Name Exists Error',
            Detail: 'The name supplied already exists. : Another customer is using this name.',
            code: '6240',
          },
        ],
        type: 'ValidationFault',
      },
      time: '2025-06-30T10:00:00.000-07:00',
    }),
    /^Duplicate Name Exists Error: The name supplied already exists/,
  ],
  [
    'Xero ValidationException',
    'xero-exception',
    json({
      ErrorNumber: 10,
      Type: 'ValidationException',
      Message: 'A validation exception occurred',
      Elements: [{ Type: 'ACCREC', ValidationErrors: [{ Message: 'Email address must be valid.' }] }],
    }),
    'A validation exception occurred: Email address must be valid.',
  ],
  [
    'Xero 401 problem',
    'http-status',
    json({ Type: null, Title: 'Unauthorized', Status: 401, Detail: 'AuthenticationUnsuccessful' }),
    'Unauthorized: AuthenticationUnsuccessful',
  ],
  [
    'Zoho Books code',
    'error-code',
    json({ code: 1002, message: 'Invoice does not exist.' }),
    'Invoice does not exist.',
  ],
  [
    'FreshBooks envelope',
    'errors-field',
    json({ response: { errors: [{ errno: 1012, field: 'userid', message: 'Client not found.' }] } }),
    'Client not found.',
  ],
  [
    'success false',
    'success-false',
    json({ success: false, message: 'Period 2024-03 is closed' }),
    'Period 2024-03 is closed',
  ],
  ['ok false', 'ok-false', json({ ok: false, reason: 'rate limited' }), 'rate limited'],
  [
    'status error',
    'status-text',
    json({ status: 'error', message: 'Tally company not open' }),
    'Tally company not open',
  ],
  [
    'NestJS statusCode',
    'error-field',
    json({ statusCode: 400, message: ['amount must be a number'], error: 'Bad Request' }),
    'amount must be a number',
  ],
  [
    'isError in JSON',
    'is-error-flag',
    json({ isError: true, message: 'upstream timeout' }),
    'upstream timeout',
  ],
  ['message only', 'message-only', json({ message: 'Failed to create invoice' }), 'Failed to create invoice'],
  [
    'structuredContent',
    'status-text',
    structured({ status: 'failed', detail: 'Bank feed locked' }),
    'Bank feed locked',
  ],
  [
    'Zoho auth',
    'error-code',
    json({ code: 57, message: 'You are not authorized to perform this operation' }),
    /not authorized/,
  ],
  ['string code', 'error-code', json({ code: 'NOT_FOUND', message: 'No contact C-9' }), 'No contact C-9'],
];

/** Successful answers that merely mention "error" or "failed". */
const successes: [string, CallResultLike][] = [
  ['Reference Error correction', json({ Invoice: { InvoiceID: 'i-1', Reference: 'Error correction' } })],
  ['top-level Reference', json({ InvoiceID: 'i-1', Reference: 'Error correction', Status: 'DRAFT' })],
  [
    'Xero empty ValidationErrors',
    json({ InvoiceID: 'i-2', HasErrors: false, ValidationErrors: [], Warnings: [], Total: 100 }),
  ],
  ['empty errors with data', json({ errors: [], data: { id: 'b-1', status: 'open' } })],
  ['error null', json({ error: null, result: { id: 7 } })],
  ['Zoho success', json({ code: 0, message: 'success', invoice: { invoice_id: '7', status: 'draft' } })],
  ['2xx code', json({ code: 201, message: 'Created', data: { id: 3 } })],
  ['company named Error', text('Invoice INV-7 created for Error Free Pvt Ltd')],
  ['journal narration', text("Journal 'Error correction Mar-26' posted")],
  ['Error correction narration', text('Error correction journal JV-12 posted to Suspense')],
  [
    'item status failed',
    json([
      { id: 1, status: 'failed' },
      { id: 2, status: 'paid' },
    ]),
  ],
  ['nested status failed', json({ batch: 'B-4', payments: [{ id: 1, status: 'failed', error: 'NSF' }] })],
  ['later line', text('Invoice created successfully:\nID: 42\nNote: previous attempt failed with error 500')],
  ['contact not found, created', text('Contact not found, so a new contact was created and INV-8 raised')],
  ['errors in a word', text('Posted 3 entries; 0 errors')],
  ['phrase before error:', text('Reversal of posting error: JV-12 posted to Suspense')],
  [
    'Zoho Books API success',
    json({ code: 0, message: 'The invoice has been created.', invoice: { status: 'draft' } }),
  ],
  ['structured success', structured({ Id: 'p-1', Status: 'AUTHORISED', Narration: 'Failed card refund' })],
  ['Tally success XML', text('<RESPONSE><CREATED>1</CREATED><ERRORS>0</ERRORS></RESPONSE>')],
  ['QuickBooks account', json({ Account: { Name: 'Errors and Omissions', AccountType: 'Expense' } })],
];

describe('reportedFailure', () => {
  it.each(failures)('recognises %s (%s)', (_label, pattern, raw, message) => {
    const found = reportedFailure(raw);
    expect(found?.pattern).toBe(pattern);
    if (typeof message === 'string') expect(found?.message).toBe(message);
    else expect(found?.message).toMatch(message);
  });

  it.each(successes)('leaves %s alone', (_label, raw) => {
    expect(reportedFailure(raw)).toBeUndefined();
  });

  it('has a case for every recogniser', () => {
    const names = [...FAILURE_TEXTS, ...FAILURE_OBJECTS].map((entry) => entry.name);
    expect(new Set(failures.map(([, pattern]) => pattern))).toEqual(new Set([...names, 'tally-xml']));
  });

  it('returns a clipped message, never the whole JSON', () => {
    const long = `Error: ${'x'.repeat(1_000)}`;
    expect(reportedFailure(text(long))?.message.length).toBeLessThanOrEqual(300);
    const bare = reportedFailure(json({ success: false, data: { id: 1, total: 10 } }));
    expect(bare?.message).not.toContain('{');
    expect(bare?.pattern).toBe('success-false');
  });
});
