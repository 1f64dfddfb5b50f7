// What a phone shows of real answers: the demo books' reports as the agent renders them (an aging
// report, a page of 40 invoices, a profit and loss), a Hindi/Hinglish answer, an answer with a card
// block, and the markdown constructs one by one.
import { describe, expect, it } from 'vitest';
import { forPhone } from '../src/format/for-phone.ts';

/** The demo books' aged receivables (31 Mar 2026), as services/agent/src/render/aging.ts writes it. */
const AGING = `### Aged receivables
as of 31 Mar 2026 · INR

**Aging by customer**

| Customer | Current | 1–30 days | 31–60 days | 61–90 days | Over 90 days | Total |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| Singh & Sons Hardware |  | ₹9,150.90 |  |  | ₹1,69,560.10 | ₹1,78,711.00 |
| Reddy Builders Pvt Ltd | ₹1,24,472.30 |  |  |  |  | ₹1,24,472.30 |
| Acme Corp | ₹29,171.00 | ₹30,280.70 | ₹63,726.00 |  |  | ₹1,23,177.70 |
| Nair Hospitality LLP | ₹63,897.00 |  |  |  |  | ₹63,897.00 |
| Iyer Interiors |  | ₹10,124.40 |  |  |  | ₹10,124.40 |
| **Total** | **₹2,17,540.30** | **₹49,556.00** | **₹63,726.00** | **₹0.00** | **₹1,69,560.10** | **₹5,00,382.40** |

**Overdue invoices**

| Invoice # | Customer | Due date | Days overdue | Amount due |
| --- | --- | --- | ---: | ---: |
| INV-0008 | Singh & Sons Hardware | 31/05/2025 | 304 | ₹57,631.20 |
| INV-0014 | Singh & Sons Hardware | 22/06/2025 | 282 | ₹1,11,928.90 |
| INV-0067 | Acme Corp | 15/02/2026 | 44 | ₹63,726.00 |
| INV-0073 | Acme Corp | 10/03/2026 | 21 | ₹30,280.70 |
| INV-0075 | Singh & Sons Hardware | 25/03/2026 | 6 | ₹9,150.90 |
| INV-0076 | Iyer Interiors | 27/03/2026 | 4 | ₹10,124.40 |
| **Total** |  |  |  | **₹2,82,842.10** |

6 invoices are overdue, ₹2,82,842.10 in all; 2 of them by more than 90 days. 4 invoices (₹2,17,540.30) are not yet due.`;

/** The first page of 40 invoices, as services/agent/src/render/list.ts writes it. */
const INVOICES = `### Invoices

| Invoice # | Customer | Date | Due date | Status | Total | Paid | Amount due | Days overdue |
| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |
| INV-0081 | Reddy Builders Pvt Ltd | 30/03/2026 | 14/05/2026 | Unpaid | ₹62,970.70 | ₹0.00 | ₹62,970.70 |  |
| INV-0080 | Nair Hospitality LLP | 15/03/2026 | 14/04/2026 | Unpaid | ₹63,897.00 | ₹0.00 | ₹63,897.00 |  |
| INV-0079 | Reddy Builders Pvt Ltd | 10/03/2026 | 24/04/2026 | Unpaid | ₹61,501.60 | ₹0.00 | ₹61,501.60 |  |
| INV-0078 | Acme Corp | 09/03/2026 | 08/04/2026 | Partly paid | ₹57,171.00 | ₹28,000.00 | ₹29,171.00 |  |
| INV-0077 | Kumar Electricals | 06/03/2026 | 21/03/2026 | Paid | ₹25,570.60 | ₹25,570.60 | ₹0.00 |  |
| INV-0076 | Iyer Interiors | 25/02/2026 | 27/03/2026 | Overdue | ₹10,124.40 | ₹0.00 | ₹10,124.40 | 4 |
| INV-0075 | Singh & Sons Hardware | 23/02/2026 | 25/03/2026 | Overdue | ₹9,150.90 | ₹0.00 | ₹9,150.90 | 6 |
| INV-0074 | Reddy Builders Pvt Ltd | 10/02/2026 | 27/03/2026 | Paid | ₹1,58,356.00 | ₹1,58,356.00 | ₹0.00 |  |
| INV-0073 | Acme Corp | 08/02/2026 | 10/03/2026 | Overdue (partly paid) | ₹68,280.70 | ₹38,000.00 | ₹30,280.70 | 21 |
| INV-0072 | Patel Constructions | 07/02/2026 | 09/03/2026 | Paid | ₹21,782.80 | ₹21,782.80 | ₹0.00 |  |
| INV-0071 | Acme Corp | 29/01/2026 | 28/02/2026 | Paid | ₹20,101.30 | ₹20,101.30 | ₹0.00 |  |
| INV-0069 | Desai Enterprises | 22/01/2026 | 21/02/2026 | Paid | ₹1,03,503.70 | ₹1,03,503.70 | ₹0.00 |  |
| INV-0070 | Desai Enterprises | 22/01/2026 | 21/02/2026 | Paid | ₹60,003.00 | ₹60,003.00 | ₹0.00 |  |
| INV-0068 | Nair Hospitality LLP | 20/01/2026 | 19/02/2026 | Paid | ₹65,218.60 | ₹65,218.60 | ₹0.00 |  |
| INV-0067 | Acme Corp | 16/01/2026 | 15/02/2026 | Overdue (partly paid) | ₹1,24,726.00 | ₹61,000.00 | ₹63,726.00 | 44 |
| INV-0066 | Singh & Sons Hardware | 14/01/2026 | 13/02/2026 | Paid | ₹99,120.00 | ₹99,120.00 | ₹0.00 |  |
| INV-0065 | Reddy Builders Pvt Ltd | 03/01/2026 | 17/02/2026 | Paid | ₹58,941.00 | ₹58,941.00 | ₹0.00 |  |
| INV-0064 | Acme Corp | 30/12/2025 | 29/01/2026 | Paid | ₹72,823.70 | ₹72,823.70 | ₹0.00 |  |
| INV-0063 | Iyer Interiors | 27/12/2025 | 26/01/2026 | Paid | ₹14,083.30 | ₹14,083.30 | ₹0.00 |  |
| INV-0062 | Patel Constructions | 21/12/2025 | 20/01/2026 | Paid | ₹13,452.00 | ₹13,452.00 | ₹0.00 |  |
| INV-0061 | Desai Enterprises | 15/12/2025 | 14/01/2026 | Paid | ₹35,854.30 | ₹35,854.30 | ₹0.00 |  |
| INV-0059 | Iyer Interiors | 14/12/2025 | 13/01/2026 | Paid | ₹40,238.00 | ₹40,238.00 | ₹0.00 |  |
| INV-0060 | Acme Corp | 14/12/2025 | 13/01/2026 | Paid | ₹1,15,640.00 | ₹1,15,640.00 | ₹0.00 |  |
| INV-0058 | Nair Hospitality LLP | 12/12/2025 | 11/01/2026 | Paid | ₹76,410.90 | ₹76,410.90 | ₹0.00 |  |
| INV-0057 | Kumar Electricals | 29/11/2025 | 14/12/2025 | Paid | ₹92,677.20 | ₹92,677.20 | ₹0.00 |  |
| INV-0056 | Acme Corp | 16/11/2025 | 16/12/2025 | Paid | ₹21,664.80 | ₹21,664.80 | ₹0.00 |  |
| INV-0054 | Desai Enterprises | 14/11/2025 | 14/12/2025 | Paid | ₹36,650.80 | ₹36,650.80 | ₹0.00 |  |
| INV-0055 | Acme Corp | 14/11/2025 | 14/12/2025 | Paid | ₹51,259.20 | ₹51,259.20 | ₹0.00 |  |
| INV-0053 | Nair Hospitality LLP | 12/11/2025 | 12/12/2025 | Paid | ₹82,423.00 | ₹82,423.00 | ₹0.00 |  |
| INV-0052 | Patel Constructions | 04/11/2025 | 04/12/2025 | Paid | ₹27,612.00 | ₹27,612.00 | ₹0.00 |  |
| INV-0051 | Nair Hospitality LLP | 30/10/2025 | 29/11/2025 | Paid | ₹36,644.90 | ₹33,753.90 | ₹0.00 |  |
| INV-0050 | Singh & Sons Hardware | 29/10/2025 | 28/11/2025 | Paid | ₹28,910.00 | ₹28,910.00 | ₹0.00 |  |
| INV-0049 | Nair Hospitality LLP | 28/10/2025 | 27/11/2025 | Paid | ₹28,532.40 | ₹28,532.40 | ₹0.00 |  |
| INV-0048 | Patel Constructions | 23/10/2025 | 22/11/2025 | Paid | ₹1,37,788.60 | ₹1,37,788.60 | ₹0.00 |  |
| INV-0047 | Patel Constructions | 22/10/2025 | 21/11/2025 | Paid | ₹30,567.90 | ₹30,567.90 | ₹0.00 |  |
| INV-0046 | Iyer Interiors | 19/10/2025 | 18/11/2025 | Paid | ₹39,471.00 | ₹39,471.00 | ₹0.00 |  |
| INV-0045 | Singh & Sons Hardware | 15/10/2025 | 14/11/2025 | Paid | ₹1,14,342.00 | ₹1,14,342.00 | ₹0.00 |  |
| INV-0044 | Acme Corp | 03/10/2025 | 02/11/2025 | Paid | ₹20,360.90 | ₹20,360.90 | ₹0.00 |  |
| INV-0043 | Kumar Electricals | 30/09/2025 | 15/10/2025 | Paid | ₹61,655.00 | ₹61,655.00 | ₹0.00 |  |
| INV-0042 | Acme Corp | 19/09/2025 | 19/10/2025 | Paid | ₹47,082.00 | ₹47,082.00 | ₹0.00 |  |

Showing 40 of 81 invoices (page 1 of 3). Say "show more" for the next page.`;

/** Profit and loss, as services/agent/src/render/pnl.ts writes it: 15 rows, the last one bold. */
const PNL = `### Profit and loss
Sharma Traders Pvt Ltd · FY 2025-26 (1 Apr 2025 to 31 Mar 2026) · INR

| Account | Amount |
| --- | ---: |
| **Income** |  |
| Sales | ₹40,40,870.00 |
| **Total income** | **₹40,40,870.00** |
| **Cost of sales** |  |
| Purchases | ₹21,87,885.00 |
| **Total cost of sales** | **₹21,87,885.00** |
| **Gross profit** | **₹18,52,985.00** |
| **Operating expenses** |  |
| Rent | ₹3,60,000.00 |
| Salaries & Wages | ₹7,80,000.00 |
| Electricity | ₹90,574.00 |
| Freight & Cartage | ₹71,500.00 |
| Bank Charges | ₹4,771.00 |
| **Total operating expenses** | **₹13,06,845.00** |
| **Net profit** | **₹5,46,140.00** |

Net profit of ₹5,46,140 (5.46 lakh) on income of ₹40,40,870 (40.41 lakh): gross margin 45.9%, net margin 13.5%.`;

const HINGLISH = `### बकाया चालान — Acme Corp

Acme Corp के **2 चालान** बकाया हैं, कुल **₹94,006.70** (0.94 lakh)। Sabse purana INV-0067 hai, 44 din se overdue.

| चालान # | देय तिथि | दिन | बकाया राशि |
| --- | --- | ---: | ---: |
| INV-0067 | 15/02/2026 | 44 | ₹63,726.00 |
| INV-0073 | 10/03/2026 | 21 | ₹30,280.70 |
| **कुल** |  |  | **₹94,006.70** |

Kya main Acme Corp ko payment reminder bhej doon? Pichhle saal ka total ₹1.2 crore tha, is saal −3.5% kam.`;

const WITH_CARD = `I've drafted the invoice for Acme Corp: ₹59,000.00 including 18% GST (₹9,000.00).

\`\`\`card
{"type": "invoice", "number": "INV-0082", "contact": "Acme Corp", "total": "₹59,000.00", "lines": [{"description": "Consulting — March", "amount": 50000}]}
\`\`\`

Shall I send it to accounts@acme.example?`;

describe('real answers on a phone', () => {
  it('an aging report: both tables as lines of rows, totals kept, every figure as written', () => {
    const { texts, document } = forPhone(AGING);
    expect(document).toBeUndefined();
    expect(texts).toEqual([
      [
        '*Aged receivables*',
        'as of 31 Mar 2026 · INR',
        '',
        '*Aging by customer*',
        '*Singh & Sons Hardware* · 1–30 days: ₹9,150.90 · Over 90 days: ₹1,69,560.10 · Total: ₹1,78,711.00',
        '*Reddy Builders Pvt Ltd* · Current: ₹1,24,472.30 · Total: ₹1,24,472.30',
        '*Acme Corp* · Current: ₹29,171.00 · 1–30 days: ₹30,280.70 · 31–60 days: ₹63,726.00 · Total: ₹1,23,177.70',
        '*Nair Hospitality LLP* · Current: ₹63,897.00 · Total: ₹63,897.00',
        '*Iyer Interiors* · 1–30 days: ₹10,124.40 · Total: ₹10,124.40',
        '*Total* · Current: *₹2,17,540.30* · 1–30 days: *₹49,556.00* · 31–60 days: *₹63,726.00* · 61–90 days: *₹0.00* · Over 90 days: *₹1,69,560.10* · Total: *₹5,00,382.40*',
        '',
        '*Overdue invoices*',
        '*INV-0008* · Customer: Singh & Sons Hardware · Due date: 31/05/2025 · Days overdue: 304 · Amount due: ₹57,631.20',
        '*INV-0014* · Customer: Singh & Sons Hardware · Due date: 22/06/2025 · Days overdue: 282 · Amount due: ₹1,11,928.90',
        '*INV-0067* · Customer: Acme Corp · Due date: 15/02/2026 · Days overdue: 44 · Amount due: ₹63,726.00',
        '*INV-0073* · Customer: Acme Corp · Due date: 10/03/2026 · Days overdue: 21 · Amount due: ₹30,280.70',
        '*INV-0075* · Customer: Singh & Sons Hardware · Due date: 25/03/2026 · Days overdue: 6 · Amount due: ₹9,150.90',
        '*INV-0076* · Customer: Iyer Interiors · Due date: 27/03/2026 · Days overdue: 4 · Amount due: ₹10,124.40',
        '*Total* · Amount due: *₹2,82,842.10*',
        '',
        '6 invoices are overdue, ₹2,82,842.10 in all; 2 of them by more than 90 days. 4 invoices (₹2,17,540.30) are not yet due.',
      ].join('\n'),
    ]);
  });

  it('an aging report in small texts: cut between paragraphs, then between rows, never inside one', () => {
    const { texts } = forPhone(AGING, { maxChars: 400 });
    expect(texts.length).toBeGreaterThan(2);
    const rows = forPhone(AGING).texts[0]?.split('\n').filter(Boolean) ?? [];
    // Each line of the whole is whole in one of the texts.
    for (const row of rows) expect(texts.some((t) => t.split('\n').includes(row))).toBe(true);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(400);
  });

  it('a page of 40 invoices: ten rows, how many more, and all 40 attached as a CSV named after the heading', () => {
    const { texts, document } = forPhone(INVOICES);
    const lines = texts.join('\n').split('\n');
    expect(lines[0]).toBe('*Invoices*');
    expect(lines[1]).toBe(
      '*INV-0081* · Customer: Reddy Builders Pvt Ltd · Date: 30/03/2026 · Due date: 14/05/2026 · Status: Unpaid · Total: ₹62,970.70 · Paid: ₹0.00 · Amount due: ₹62,970.70',
    );
    expect(lines.filter((l) => l.startsWith('*INV-'))).toHaveLength(10);
    expect(lines.at(-1)).toBe('Showing 40 of 81 invoices (page 1 of 3). Say "show more" for the next page.');
    expect(lines).toContain('…and 30 more. The full list of 40 rows is attached as a CSV file.');
    expect(texts.join('\n')).not.toContain('INV-0071');
    expect(document).toMatchObject({
      filename: 'invoices.csv',
      mimeType: 'text/csv',
      caption: 'Invoices (40 rows)',
    });
    const csv = (document?.content ?? '').replace(/^\uFEFF/, '').split('\n');
    expect(csv[0]).toBe('Invoice #,Customer,Date,Due date,Status,Total,Paid,Amount due,Days overdue');
    expect(csv.filter((l) => l.startsWith('INV-'))).toHaveLength(40);
    expect(csv).toContain(
      'INV-0074,Reddy Builders Pvt Ltd,10/02/2026,27/03/2026,Paid,"₹1,58,356.00","₹1,58,356.00",₹0.00,',
    );
    expect(csv).toContain(
      'INV-0073,Acme Corp,08/02/2026,10/03/2026,Overdue (partly paid),"₹68,280.70","₹38,000.00","₹30,280.70",21',
    );
    expect(csv).toContain('INV-0042,Acme Corp,19/09/2025,19/10/2025,Paid,"₹47,082.00","₹47,082.00",₹0.00,');
  });

  it('a profit and loss cut to ten rows keeps its last bold row, net profit, and the lakh figures', () => {
    const out = forPhone(PNL).texts.join('\n');
    expect(out).toContain(
      '*Rent* · Amount: ₹3,60,000.00\n*Salaries & Wages* · Amount: ₹7,80,000.00\n…and 4 more.\n*Net profit* · Amount: *₹5,46,140.00*',
    );
    expect(out).not.toContain('Electricity');
    expect(out).toContain(
      'Net profit of ₹5,46,140 (5.46 lakh) on income of ₹40,40,870 (40.41 lakh): gross margin 45.9%, net margin 13.5%.',
    );
  });

  it('a Hindi/Hinglish answer with a table: Devanagari labels, figures, lakh, crore and a negative as written', () => {
    const { texts, document } = forPhone(HINGLISH);
    expect(document).toBeUndefined();
    expect(texts).toEqual([
      [
        '*बकाया चालान — Acme Corp*',
        'Acme Corp के *2 चालान* बकाया हैं, कुल *₹94,006.70* (0.94 lakh)। Sabse purana INV-0067 hai, 44 din se overdue.',
        '',
        '*INV-0067* · देय तिथि: 15/02/2026 · दिन: 44 · बकाया राशि: ₹63,726.00',
        '*INV-0073* · देय तिथि: 10/03/2026 · दिन: 21 · बकाया राशि: ₹30,280.70',
        '*कुल* · बकाया राशि: *₹94,006.70*',
        '',
        'Kya main Acme Corp ko payment reminder bhej doon? Pichhle saal ka total ₹1.2 crore tha, is saal −3.5% kam.',
      ].join('\n'),
    ]);
  });

  it('a Hinglish answer in texts of 60 code units: cut at words, every Devanagari syllable whole', () => {
    const { texts } = forPhone(HINGLISH, { maxChars: 60 });
    const whole = forPhone(HINGLISH).texts[0] ?? '';
    const words = (s: string) => s.split(/\s+/).filter(Boolean);
    expect(texts.flatMap(words)).toEqual(words(whole));
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(60);
  });

  it('a Hindi word longer than a text is cut between graphemes, never inside a syllable', () => {
    const word = 'बकायाराशि'.repeat(30);
    const { texts } = forPhone(word, { maxChars: 7 });
    const segmenter = new Intl.Segmenter('hi', { granularity: 'grapheme' });
    const syllables = [...segmenter.segment(word)].map((s) => s.segment);
    expect(texts.join('')).toBe(word);
    expect(texts.flatMap((t) => [...segmenter.segment(t)].map((s) => s.segment))).toEqual(syllables);
  });

  it('an answer with a card block: the card is dropped, none of its content shows', () => {
    const { texts } = forPhone(WITH_CARD);
    expect(texts).toEqual([
      "I've drafted the invoice for Acme Corp: ₹59,000.00 including 18% GST (₹9,000.00).\n\nShall I send it to accounts@acme.example?",
    ]);
  });
});

describe('markdown as WhatsApp text', () => {
  it.each([
    ['**Net profit** is ₹5,46,140', '*Net profit* is ₹5,46,140'],
    ['__Net profit__ is ₹5,46,140', '*Net profit* is ₹5,46,140'],
    ['an *overdue* and an _unpaid_ invoice', 'an _overdue_ and an _unpaid_ invoice'],
    ['~~₹10,000.00~~ ₹9,000.00', '~₹10,000.00~ ₹9,000.00'],
    [
      '## Cash flow\nNet cash from operations ₹-1,20,000.00',
      '*Cash flow*\nNet cash from operations ₹-1,20,000.00',
    ],
    ['# **Bold** heading', '*Bold heading*'],
    ['[Invoice INV-0042](https://app.example/i/42)', 'Invoice INV-0042 (https://app.example/i/42)'],
    ['See https://app.example/i/42', 'See https://app.example/i/42'],
    ['Use `INV-0042` for this', 'Use INV-0042 for this'],
    [
      '```\nINV-0042   ₹1,000.00\nINV-0043   ₹2,000.00\n```',
      '```INV-0042   ₹1,000.00\nINV-0043   ₹2,000.00```',
    ],
    ['```text\nCash ₹1,00,000\n```', '```Cash ₹1,00,000```'],
    [
      'Singh &amp; Sons <b>owe</b> <i>₹9,150.90</i><br>since March',
      'Singh & Sons owe ₹9,150.90\nsince March',
    ],
    ['<div align="right">₹5,00,382.40</div>', '₹5,00,382.40'],
    ['Total <!-- model note --> ₹1.2 crore', 'Total  ₹1.2 crore'],
    [
      '- Acme Corp: ₹1,23,177.70\n- Iyer Interiors: ₹10,124.40',
      '• Acme Corp: ₹1,23,177.70\n• Iyer Interiors: ₹10,124.40',
    ],
    ['3. Send reminders\n4. Record the payment', '3. Send reminders\n4. Record the payment'],
    ['- Overdue\n  - INV-0008\n  - INV-0014', '• Overdue\n  • INV-0008\n  • INV-0014'],
    ['- [x] GST filed\n- [ ] TDS return', '• ☑ GST filed\n• ☐ TDS return'],
    ['> Payment terms: **Net 30**', '> Payment terms: *Net 30*'],
    ['Balance\n---\n\n***\n\nDone', '*Balance*\nDone'],
    [
      'I need a few more details:\n• Which invoice?\n• What amount?',
      'I need a few more details:\n• Which invoice?\n• What amount?',
    ],
    ['Card **** 4321 was charged ₹-500.00 (−0.5%)', 'Card **** 4321 was charged ₹-500.00 (−0.5%)'],
    ['```markdown\n**Due:** ₹5,000\n```', '*Due:* ₹5,000'],
  ])('%j → %j', (markdown, phone) => {
    expect(forPhone(markdown).texts).toEqual([phone]);
  });

  it.each(['card', 'chart', 'json', 'params', 'clarification', 'yaml'])(
    'a fenced %s block (for the UI) is dropped',
    (lang) => {
      const md = `Before.\n\n\`\`\`${lang}\n{"amount": "₹7,77,777.00", "secret": "UI-ONLY"}\n\`\`\`\n\nAfter.`;
      expect(forPhone(md).texts).toEqual(['Before.\n\nAfter.']);
    },
  );

  it('drops a card block that is still open at the end, and one indented under a list', () => {
    expect(forPhone('Drafted.\n\n```card\n{"total": "₹59,000.00"').texts).toEqual(['Drafted.']);
    expect(forPhone('- Drafted\n\n    ```chart\n    {"total": "₹59,000.00"}\n    ```').texts).toEqual([
      '• Drafted',
    ]);
  });

  it('a cell that would run as a spreadsheet formula is quoted in the CSV; a negative figure is not', () => {
    const md = [
      '| Name | Amount |',
      '| --- | ---: |',
      '| =HYPERLINK("http://x.example") | -₹5,000.00 |',
      '| @SUM(A1) | -12.5% |',
      '| -cmd | +₹1,000.00 |',
    ].join('\n');
    const { document } = forPhone(md, { documentRows: 3 });
    expect(document?.filename).toBe('list.csv');
    expect(document?.content).toBe(
      '\uFEFFName,Amount\n"\'=HYPERLINK(""http://x.example"")","-₹5,000.00"\n\'@SUM(A1),-12.5%\n\'-cmd,"\'+₹1,000.00"\n',
    );
  });

  it('refuses a limit no text can meet', () => {
    expect(() => forPhone('x', { maxChars: 1 })).toThrow(RangeError);
    expect(() => forPhone('x', { maxRows: -1 })).toThrow(RangeError);
    expect(() => forPhone('x', { documentRows: 0 })).toThrow(RangeError);
  });
});
