import { editDistance, normalize, typoBudget } from './text.ts';

/**
 * Canonical word sets: what a query "means" for intent matching, independent of case,
 * punctuation, digits, word order, plurals, English/Hinglish wording and small typos.
 */

/** Multi-word expressions that stand for one concept, longest first. */
const PHRASES: readonly [RegExp, string][] = (
  [
    ['profit and loss', 'pnl'],
    ['profit & loss', 'pnl'],
    ['profit n loss', 'pnl'],
    ['profit loss', 'pnl'],
    ['p & l', 'pnl'],
    ['p&l', 'pnl'],
    ['p and l', 'pnl'],
    ['p n l', 'pnl'],
    ['income statement', 'pnl'],
    ['naafa nuksaan', 'pnl'],
    ['nafa nuksan', 'pnl'],
    ['munafa nuksaan', 'pnl'],
    ['labh hani', 'pnl'],
    ['balance sheet', 'balancesheet'],
    ['balancesheet', 'balancesheet'],
    ['trial balance', 'trialbalance'],
    ['cash flow', 'cashflow'],
    ['cash flows', 'cashflow'],
    ['nakad pravah', 'cashflow'],
    ['charts of accounts', 'coa'],
    ['chart of accounts', 'coa'],
    ['chart of account', 'coa'],
    ['credit notes', 'creditnote'],
    ['credit note', 'creditnote'],
    ['journal entries', 'journal'],
    ['journal entry', 'journal'],
    ['day book', 'journal'],
    ['daybook', 'journal'],
    ['past due', 'overdue'],
    ['over due', 'overdue'],
    ['input tax credit', 'itc'],
    ['e invoice', 'einvoice'],
    ['net worth', 'networth'],
    ['how much', ''],
    // "send me the P&L" asks to see it.
    ['send me', ''],
    ['email me', ''],
    ['mail me', ''],
    ['kitna paisa', 'paisa'],
    ['owe me', 'owesme'],
    ['owes me', 'owesme'],
    ['owe us', 'owesme'],
    ['owes us', 'owesme'],
    ['do i owe', 'iowe'],
    ['do we owe', 'iowe'],
    ['i owe', 'iowe'],
    ['we owe', 'iowe'],
    ['net profit', 'netprofit'],
    ['gross profit', 'grossprofit'],
    ['bank balance', 'bankbalance'],
    ['bank balances', 'bankbalance'],
    ['cash in hand', 'cashinhand'],
  ] as const
).map(([from, to]) => [new RegExp(`(^| )${from.replace(/[&]/g, '\\&')}(?= |$)`, 'g'), ` ${to}`]);

/** Word → canonical word (Hinglish, Devanagari, synonyms). Applied after plural stripping. */
const SYNONYMS: Readonly<Record<string, string>> = {
  invoices: 'invoice',
  invoise: 'invoice',
  इनवॉइस: 'invoice',
  inv: 'invoice',
  bikri: 'sale',
  बिक्री: 'sale',
  बिल: 'bill',
  bhugtan: 'payment',
  भुगतान: 'payment',
  grahak: 'customer',
  ग्राहक: 'customer',
  client: 'customer',
  buyer: 'customer',
  supplier: 'vendor',
  vikreta: 'vendor',
  khata: 'account',
  khate: 'account',
  खाता: 'account',
  ledger: 'account',
  munafa: 'profit',
  naafa: 'profit',
  nafa: 'profit',
  labh: 'profit',
  मुनाफा: 'profit',
  लाभ: 'profit',
  nuksaan: 'loss',
  nuksan: 'loss',
  kharcha: 'expense',
  kharche: 'expense',
  kharchon: 'expense',
  खर्च: 'expense',
  खर्चा: 'expense',
  spending: 'expense',
  expenditure: 'expense',
  baaki: 'due',
  baki: 'due',
  bakaya: 'due',
  बकाया: 'due',
  outstanding: 'due',
  pending: 'due',
  dues: 'due',
  aged: 'aging',
  ageing: 'aging',
  jiएसटी: 'gst',
  जीएसटी: 'gst',
  received: 'receive',
  receipt: 'receive',
  mila: 'receive',
  mile: 'receive',
  aaya: 'receive',
  aaye: 'receive',
  diya: 'paid',
  diye: 'paid',
  kiya: '',
  gaya: '',
  sampatti: 'asset',
  dendari: 'liability',
  paisa: 'money',
  paise: 'money',
  rupaye: 'money',
  nakad: 'cash',
  rokad: 'cash',
  कैश: 'cash',
  unpaid: 'unpaid',
  latest: 'recent',
  last: 'recent',
  udhaar: 'due',
  udhar: 'due',
  lena: 'receivable',
  dena: 'payable',
  purchase: 'bill',
  kharid: 'bill',
  kharidari: 'bill',
  revenue: 'sale',
  turnover: 'sale',
  draft: 'draft',
  drafts: 'draft',
  approval: 'approve',
  approved: 'approve',
};

/** Words that carry no meaning for intent matching (English and Hinglish fillers, view verbs). */
const STOPWORDS = new Set(
  `a an the me my mine our ours i we us you your yours all please pls plz kindly can could would will
  for of to in on at is are was were be been being what which whats what's show list get display view give
  tell fetch see let lets check pull up bring open know want need just now quickly some every entire full
  complete current about do does did have has there any and or with from by my hey hi hello ok okay so
  also them it this that these those here my report reports statement statements summary details detail
  info information overview breakdown data mujhe mere mera meri hamare humare hamara humara hum ham saare sare
  sabhi sab ka ki ke ko hai hain ho kya dikhao dikha dikhaao dikhaiye dikhana batao bata bataiye batana do
  de dijiye dena karo kar zara jara ji abhi wala wali wale se par pe me mein aur ya toh to tha thi the
  दिखाओ बताओ मुझे मेरे सभी सारे का की के को है हैं क्या और total entire whole current status much many
  kitna kitne kitni where did how who whom whose kaun kaunse kaunsa konse kahan kab`.split(/\s+/),
);

/** Whether a word carries no meaning for intent matching. */
export const isStopword = (word: string): boolean => STOPWORDS.has(word);

/** Words the canonical form knows besides the catalog's: stopwords, synonyms and multi-word expressions. */
export function knownWords(): Set<string> {
  const words = new Set<string>([...STOPWORDS, ...Object.keys(SYNONYMS)]);
  for (const [re] of PHRASES)
    for (const w of re.source.replace(/[^a-z& ]/g, ' ').split(' ')) if (w.length > 1) words.add(w);
  return words;
}

/** Words never plural-stripped. */
const KEEP_S = new Set(['gst', 'its', 'this', 'status', 'days', 'loss', 'gross', 'business', 'pass']);

function singular(word: string): string {
  if (word.length <= 3 || KEEP_S.has(word) || !/^[a-z]+$/.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ss')) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** Document numbers (INV-0042, BILL-7, CN-003 …) and the reference token that stands for each kind. */
export const DOC_NUMBER = /\b(INV|BILL|PAY|CN|JE|PO|SO)[-/ ]?(\d{1,10})\b/gi;
const DOC_TOKEN: Readonly<Record<string, string>> = {
  inv: 'invref',
  bill: 'billref',
  pay: 'payref',
  cn: 'cnref',
  je: 'jeref',
  po: 'poref',
  so: 'soref',
};

/** A word-level view of a query after phrase merging, synonyms, stopwords and plurals. */
export function canonicalWords(text: string): string[] {
  let t = normalize(text.replace(DOC_NUMBER, (_m, kind: string) => ` ${DOC_TOKEN[kind.toLowerCase()]} `));
  t = ` ${t} `;
  for (const [re, to] of PHRASES) t = t.replace(re, `$1${to}`);
  const out: string[] = [];
  for (const raw of t.split(' ')) {
    if (!raw) continue;
    if (STOPWORDS.has(raw)) continue;
    const mapped = SYNONYMS[raw] ?? SYNONYMS[singular(raw)] ?? singular(raw);
    if (mapped && !STOPWORDS.has(mapped)) out.push(mapped);
  }
  return out;
}

/** Corrects words outside a vocabulary to the one vocabulary word within the typo budget. */
export class Speller {
  private readonly vocabulary: string[];
  private readonly known: Set<string>;
  private readonly memo = new Map<string, string>();

  constructor(words: Iterable<string>) {
    this.known = new Set(words);
    this.vocabulary = [...this.known].filter((w) => w.length >= 4 && /^[a-z]+$/.test(w));
  }

  correct(word: string): string {
    if (this.known.has(word) || word.length < 3 || !/^[a-z]+$/.test(word)) return word;
    const cached = this.memo.get(word);
    if (cached !== undefined) return cached;
    let best = word;
    let bestDistance = Number.POSITIVE_INFINITY;
    let tie = false;
    for (const candidate of this.vocabulary) {
      // A word spelled into a stopword is dropped from the match: "invoices of Tata" would lose its
      // party as "invoices of data". Typos rarely touch the first letter, names turn into stopwords by it.
      if (STOPWORDS.has(candidate) && candidate[0] !== word[0]) continue;
      const budget = Math.min(typoBudget(candidate.length), typoBudget(word.length + 1));
      if (budget === 0 || Math.abs(candidate.length - word.length) > budget) continue;
      const d = editDistance(word, candidate, budget);
      if (d > budget) continue;
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
        tie = false;
      } else if (d === bestDistance && candidate !== best) {
        tie = true;
      }
    }
    // Two equally close words: guessing could change the meaning, so keep the word as typed.
    const result = tie ? word : best;
    if (this.memo.size > 10_000) this.memo.clear();
    this.memo.set(word, result);
    return result;
  }
}
