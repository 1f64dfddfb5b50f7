import { isRecord } from '@munim/contracts';
import { companyOf, coverage, currencyOf, hint, type RenderInput } from './input.ts';
import { heading, table } from './markdown.ts';
import { keyOf, num, pick, rowsOf, str } from './shape.ts';
import { type Block, readSection, statementTable, sum } from './statement.ts';
import { capitalise } from './words.ts';

export const ACTIVITIES = [
  {
    title: 'Operating activities',
    aliases: [
      'OperatingActivities',
      'CashFromOperatingActivities',
      'CashFlowFromOperatingActivities',
      'Operating',
      'OperatingCashFlow',
    ],
  },
  {
    title: 'Investing activities',
    aliases: [
      'InvestingActivities',
      'CashFromInvestingActivities',
      'CashFlowFromInvestingActivities',
      'Investing',
      'InvestingCashFlow',
    ],
  },
  {
    title: 'Financing activities',
    aliases: [
      'FinancingActivities',
      'CashFromFinancingActivities',
      'CashFlowFromFinancingActivities',
      'Financing',
      'FinancingCashFlow',
    ],
  },
];
const OPENING = [
  'OpeningCashBalance',
  'OpeningBalance',
  'CashAtBeginning',
  'BeginningCashBalance',
  'CashAtBeginningOfPeriod',
  'OpeningCash',
];
const CLOSING = [
  'ClosingCashBalance',
  'ClosingBalance',
  'CashAtEnd',
  'EndingCashBalance',
  'CashAtEndOfPeriod',
  'ClosingCash',
];
const NET = [
  'NetChangeInCash',
  'NetCashFlow',
  'NetIncreaseInCash',
  'NetCashChange',
  'NetIncreaseDecreaseInCash',
  'NetChange',
];

/** A cash flow statement: opening cash, the three activities and their net cash, the change, closing cash. */
export function renderCashFlow(input: RenderInput): string | undefined {
  const { result, fmt } = input;
  if (!isRecord(result)) return undefined;
  const activities = ACTIVITIES.map((a) => {
    const key = keyOf(result, a.aliases);
    return { ...a, section: key ? readSection(result[key]) : undefined };
  });
  const opening = num(result, OPENING);
  const closing = num(result, CLOSING);
  const net = num(result, NET);
  const present = activities.filter((a) => a.section).length;
  const named = /cash ?flow/.test(hint(input));
  if (
    present === 0 ||
    (!named && present + [opening, closing, net].filter((x) => x !== undefined).length < 3)
  )
    return undefined;

  const currency = currencyOf(result, fmt);
  const money = (n: number) => fmt.money(n, currency);
  const blocks: Block[] = [];
  if (opening !== undefined) blocks.push({ kind: 'figure', label: 'Opening cash balance', amount: opening });
  for (const a of activities) {
    if (!a.section) continue;
    blocks.push({
      kind: 'section',
      title: a.title,
      lines: a.section.lines,
      total: a.section.total,
      totalLabel: `Net cash from ${a.title.toLowerCase()}`,
    });
  }
  if (net !== undefined) blocks.push({ kind: 'figure', label: 'Net change in cash', amount: net });
  if (closing !== undefined) blocks.push({ kind: 'figure', label: 'Closing cash balance', amount: closing });

  const method = str(result, ['Method']);
  const out = [
    heading('Cash flow statement', [
      companyOf(result, fmt),
      coverage(result, fmt),
      method ? `${capitalise(method)} method` : undefined,
      currency,
    ]),
    statementTable(blocks, money, 'Cash flow'),
  ];
  if (opening !== undefined && net !== undefined && closing !== undefined) {
    const gap = sum([opening, net, -closing]);
    out.push(
      Math.abs(gap) < 0.01
        ? '✓ Opening balance plus the net change equals the closing balance.'
        : `⚠️ Opening balance plus the net change differs from the closing balance by ${money(Math.abs(gap))}.`,
    );
  }
  const accounts = rowsOf(result, ['CashAccounts', 'BankAccounts', 'Accounts']);
  if (accounts?.length) {
    const rows = accounts.map((a) => [
      str(a, ['Name', 'AccountName']),
      pick(a, ['Balance', 'Amount', 'ClosingBalance'], (v) => (typeof v === 'number' ? money(v) : undefined)),
    ]);
    out.push(`**Cash and bank balances**\n\n${table(['Account', 'Balance'], rows, [false, true])}`);
  }
  return out.join('\n\n');
}
