import { describe, expect, it } from 'vitest';
import { partyOf, readFinanceQuestion } from '../src/finance/question.ts';

/** Real questions a finance person asks, and what munim must read off them. */
const CASES: [string, string, string?][] = [
  ['who owes me the most money?', 'receivables.top'],
  ['Who owes me the most?', 'receivables.top'],
  ['sabse zyada paisa kiska baaki hai', 'receivables.top'],
  ['top 5 debtors', 'receivables.top'],
  ['how much do customers owe me', 'receivables.total'],
  ['total receivables', 'receivables.total'],
  ['customers se kitna lena hai', 'receivables.total'],
  ['How much does Acme Corp owe me?', 'receivables.total', 'Acme Corp'],
  ['Acme Corp ka kitna baaki hai', 'receivables.total', 'Acme Corp'],
  ['show overdue invoices for Acme Corp', 'receivables.overdue', 'Acme Corp'],
  ['how much is overdue from customers', 'receivables.overdue'],
  ['how much do I owe my vendors?', 'payables.total'],
  ['suppliers ko kitna dena hai', 'payables.total'],
  ['which vendor do we owe the most', 'payables.top'],
  ['bills due this week', 'payables.due'],
  ['is hafte kaun se bill due hain', 'payables.due'],
  ['invoices due next week', 'receivables.due'],
  ['how much cash do I have?', 'cash.today'],
  ['bank balance kitna hai', 'cash.today'],
  ['कैश कितना है', 'cash.today'],
  ['will I run short of cash?', 'cash.forecast'],
  ['cash forecast for the next 13 weeks', 'cash.forecast'],
  ['how long will my cash last', 'kpi.runway'],
  ['what is my burn rate', 'kpi.runway'],
  ['what is my profit this year?', 'profit'],
  ['is saal kitna munafa hua', 'profit'],
  ['इस साल का मुनाफा', 'profit'],
  ['what were my sales last month?', 'sales'],
  ['pichle mahine ki bikri', 'sales'],
  ['पिछले महीने की बिक्री कितनी थी', 'sales'],
  ["compare this month's sales with last month", 'sales'],
  ['sales last month vs this month', 'sales'],
  ['sales to Tata Steel this quarter', 'sales', 'Tata Steel'],
  ['how much GST do I owe this month?', 'gst.payable'],
  ['GST kitna bharna hai', 'gst.payable'],
  ['any unusual expenses?', 'anomalies'],
  ['koi ajeeb kharcha?', 'anomalies'],
  ['what did we spend last quarter', 'expenses'],
  ['kharcha kitna hua pichle mahine', 'expenses'],
  ['what is my gross margin', 'kpi.margin'],
  ['how long do customers take to pay', 'kpi.dso'],
  ['what is our DPO', 'kpi.dpo'],
  ['current ratio', 'kpi.current_ratio'],
  ['budget vs actual this quarter', 'budget'],
  ['mujhe customers se kitna paisa lena hai', 'receivables.total'],
  ['ग्राहकों से कितना लेना है', 'receivables.total'],
  ['मुझे सप्लायर को कितना देना है', 'payables.total'],
  ['overdue amount for Singh & Sons Hardware', 'receivables.overdue', 'Singh & Sons Hardware'],
  ['Acme Corp ko is saal kitna becha', 'sales', 'Acme Corp'],
];

describe('finance questions, read by code', () => {
  it.each(CASES)('%s → %s', (question, measure, party) => {
    const read = readFinanceQuestion(question);
    expect(read?.measure).toBe(measure);
    expect(read?.party).toBe(party);
  });

  it('reads a ranking’s size and a comparison', () => {
    expect(readFinanceQuestion('top 5 debtors')?.top).toBe(5);
    expect(readFinanceQuestion('sales last month vs this month')?.compares).toBe(true);
    expect(readFinanceQuestion('what were my sales last month')?.compares).toBe(false);
  });

  it('leaves orders, chat and other questions to the model', () => {
    for (const other of [
      'pay Acme Corp ₹5,000',
      'record a payment of 20000 from Acme',
      'send invoice INV-0042 to the customer',
      'hello, how are you?',
      'what is the capital of France',
      'explain depreciation to me',
      'create a customer named Bliss Traders',
      'why did my profit fall this quarter',
      'kya mujhe naya godown lena chahiye',
      'mujhe ek loan lena hai',
      'compare revenue trend this quarter',
      'how can I reduce my expenses',
      'show the profit and loss for last month',
      'aged receivables report',
      'GST summary for October',
      // The list its report shows, with the aging.
      'show overdue invoices',
      'which invoices are overdue',
      'overdue bills dikhao',
    ])
      expect(readFinanceQuestion(other), other).toBeUndefined();
  });

  it('never reads a period, a question word or a kind of party as a party', () => {
    for (const question of [
      'sales for last month',
      'profit for this quarter',
      'sales of Q2',
      'who owes me money',
      'how much do my customers owe me',
      'pichle mahine ki sales',
      'expenses for this year',
      'receivables from all customers',
    ])
      expect(partyOf(question), question).toBeUndefined();
  });
});
