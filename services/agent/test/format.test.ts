import { describe, expect, it } from 'vitest';
import { renderResults } from '../src/render/format.ts';

const uuid = '95b16e3d-abe3-498c-9a4a-b421e9ae35aa';

describe('deterministic fast-path rendering', () => {
  it('renders a list as a markdown table of curated columns without ids', () => {
    const md = renderResults([
      {
        tool: 'get_all_invoices',
        result: {
          Invoices: [
            {
              InvoiceId: uuid,
              InvoiceNumber: 'INV-0001',
              ContactName: 'Acme Corp',
              Date: '2026-11-01',
              AmountDue: 125000.5,
              DaysOverdue: 3,
              Lines: [{}],
            },
            {
              InvoiceId: uuid,
              InvoiceNumber: 'INV-0002',
              ContactName: 'Zenith',
              Date: '2026-10-01',
              AmountDue: 0,
              DaysOverdue: 0,
              Lines: [],
            },
          ],
          Page: 1,
        },
      },
    ]);
    // Invoices are to customers; "Amount due" is not "Due date".
    expect(md).toContain('| Invoice # | Customer | Date | Amount due | Days overdue |');
    expect(md).toContain('| INV-0001 | Acme Corp | 01/11/2026 | ₹1,25,000.50 | 3 |');
    // The count says what the records are.
    expect(md).toContain('2 invoices.');
    expect(md).not.toContain(uuid);
  });

  it('drops any column holding a UUID and says when a list is empty', () => {
    const md = renderResults([
      { tool: 'get_odd', result: [{ Ref: uuid, Label: 'x', Other: 'y' }] },
      { tool: 'get_items', result: { Items: [] } },
    ]);
    expect(md).not.toContain(uuid);
    expect(md).toContain('| Label | Other |');
    expect(md).toContain('No records found.');
  });
});
