/**
 * What munim answers from the books by code, as questions a person would ask: offered, closest to
 * what was asked, when a question needs a model that is not configured.
 */
const EXAMPLES: readonly { question: string; words: readonly string[]; hinglish?: boolean }[] = [
  {
    question: 'Who owes me the most money?',
    words: ['owe', 'owes', 'customer', 'receivable', 'debtor', 'most', 'money'],
  },
  {
    question: 'How much do I owe my vendors?',
    words: ['owe', 'vendor', 'supplier', 'payable', 'bill', 'pay'],
  },
  { question: 'How much cash do I have?', words: ['cash', 'bank', 'balance', 'money', 'fund', 'liquidity'] },
  {
    question: 'Will I run short of cash in the next 13 weeks?',
    words: ['cash', 'forecast', 'short', 'future', 'next', 'week', 'runway', 'last'],
  },
  { question: 'What is my profit this year?', words: ['profit', 'loss', 'earn', 'margin', 'year', 'fy'] },
  {
    question: 'What were my sales last month?',
    words: ['sale', 'sales', 'revenue', 'turnover', 'income', 'sold', 'month'],
  },
  {
    question: "Compare this month's sales with last month",
    words: ['compare', 'vs', 'growth', 'trend', 'sale', 'change', 'month'],
  },
  {
    question: 'How much GST do I owe this month?',
    words: ['gst', 'tax', 'igst', 'cgst', 'sgst', 'return', 'filing'],
  },
  { question: 'What did I spend last quarter?', words: ['expense', 'spend', 'spent', 'cost', 'quarter'] },
  {
    question: 'Any unusual expenses this month?',
    words: ['unusual', 'expense', 'anomaly', 'strange', 'spike', 'fraud', 'check'],
  },
  { question: 'Bills due this week', words: ['bill', 'due', 'week', 'pay', 'upcoming', 'payable'] },
  {
    question: 'Show overdue invoices for Acme Corp',
    words: ['overdue', 'invoice', 'late', 'customer', 'pending', 'reminder'],
  },
  {
    question: 'What is my gross margin this year?',
    words: ['margin', 'gross', 'profitability', 'kpi', 'ratio'],
  },
  {
    question: 'How long do customers take to pay?',
    words: ['dso', 'days', 'collection', 'customer', 'late', 'pay', 'kpi'],
  },
  {
    question: 'sabse zyada paisa kiska baaki hai?',
    words: ['baaki', 'baki', 'paisa', 'kiska', 'lena', 'udhaar', 'बकाया', 'बाकी', 'लेना'],
    hinglish: true,
  },
  {
    question: 'is saal kitna munafa hua?',
    words: ['munafa', 'nafa', 'profit', 'saal', 'kamai', 'मुनाफा', 'मुनाफ़ा', 'लाभ'],
    hinglish: true,
  },
  {
    question: 'pichle mahine ki bikri kitni thi?',
    words: ['bikri', 'sales', 'pichle', 'mahine', 'becha', 'बिक्री'],
    hinglish: true,
  },
  {
    question: 'is mahine GST kitna bharna hai?',
    words: ['gst', 'bharna', 'tax', 'mahine', 'kitna', 'जीएसटी', 'टैक्स'],
    hinglish: true,
  },
  {
    question: 'cash kitna hai?',
    words: ['cash', 'nakad', 'bank', 'paisa', 'kitna', 'कैश', 'बैंक', 'नकद'],
    hinglish: true,
  },
];

const DEFAULTS = [0, 2, 4, 5];
const HINGLISH_DEFAULTS = [14, 15, 16, 17];

const HINGLISH =
  /\b(kya|kitna|kitni|kaise|kyun|kyon|hai|hain|tha|mera|meri|mujhe|karo|dikhao|batao|chahiye|lena|dena|baaki|paisa|saal|mahine)\b|[\u0900-\u097F]/i;

const wordsOf = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .normalize('NFKC')
      .split(/[^\p{L}\p{M}\p{N}]+/u)
      .filter((w) => w.length > 1)
      .map((w) => (w.length > 4 && w.endsWith('s') ? w.slice(0, -1) : w)),
  );

/** Up to `n` example questions closest to `query` (by shared words), in its language where there are some. */
export function examplesFor(query: string, n = 3): string[] {
  const asked = wordsOf(query);
  const hinglish = HINGLISH.test(query);
  const scored = EXAMPLES.map((example, index) => ({
    index,
    score:
      example.words.filter((w) => asked.has(w.normalize('NFKC'))).length * 2 +
      (example.hinglish === hinglish ? 1 : 0) +
      (example.hinglish && !hinglish ? -2 : 0),
  })).sort((a, b) => b.score - a.score || a.index - b.index);
  const best = scored.filter((s) => s.score >= 2).map((s) => s.index);
  const picked = [...new Set([...best, ...(hinglish ? HINGLISH_DEFAULTS : DEFAULTS)])].slice(0, n);
  return picked.map((i) => EXAMPLES[i]?.question as string);
}

/** The reply to a question that needs a model when none is configured: what munim can answer instead. */
export function withoutModel(query: string): string {
  const examples = examplesFor(query);
  return (
    "No language model is configured, so I can't answer that one. I can answer questions I work out " +
    `straight from your books, for example: ${examples.map((e) => `“${e}”`).join(', ')}. ` +
    'To enable everything else, set OPENAI_BASE_URL, OPENAI_API_KEY and LLM_MODEL.'
  );
}
