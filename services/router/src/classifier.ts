import type { Category } from '@munim/contracts';

/** Whole-message small talk: greetings, thanks, farewells, meta questions (seed 003 §3.1). */
const GENERAL_CHAT: readonly RegExp[] = [
  /^(hi+|hello+|hey+|hii+|namaste|namaskar|good (morning|afternoon|evening|night)|greetings)\b/,
  /^(thanks?|thank you|thx|ok(ay)?|sure|got it|cool|great|nice|fine|dhanyavaad|dhanyawad|shukriya)\b/,
  /^(bye|goodbye|see you|alvida|tata)\b/,
  /^(help|what can you do|who are you|what are you|how are you)\b/,
  /^(haan|han|ha|nahi|nahin|theek|thik|accha|acha|sahi|yes|no)\b/,
];

/** Words that make a message financial (seed 003 §3.1: actions, views, entities, figures, Hindi). */
export const FINANCIAL_KEYWORDS: readonly string[] = [
  // actions
  'create',
  'add',
  'new',
  'edit',
  'update',
  'change',
  'delete',
  'remove',
  'record',
  'send',
  'file',
  'void',
  'import',
  'clone',
  'reconcile',
  'merge',
  'approve',
  'pay',
  'issue',
  'raise',
  // view / query
  'show',
  'list',
  'get',
  'find',
  'view',
  'report',
  'analyze',
  'analyse',
  'compare',
  'summary',
  'details',
  'statement',
  // entities
  'invoice',
  'invoices',
  'bill',
  'bills',
  'payment',
  'payments',
  'expense',
  'expenses',
  'journal',
  'customer',
  'customers',
  'vendor',
  'vendors',
  'supplier',
  'suppliers',
  'inventory',
  'stock',
  'product',
  'products',
  'account',
  'accounts',
  'ledger',
  'credit note',
  'debit note',
  'challan',
  'receipt',
  'transaction',
  'transactions',
  'bank',
  // figures
  'revenue',
  'sales',
  'profit',
  'loss',
  'p&l',
  'margin',
  'cash',
  'cash flow',
  'balance',
  'balance sheet',
  'receivable',
  'receivables',
  'payable',
  'payables',
  'overdue',
  'aging',
  'ageing',
  'gst',
  'gstr',
  'tax',
  'tds',
  'itc',
  'kpi',
  'forecast',
  'budget',
  'trend',
  'amount',
  'due',
  'outstanding',
  '₹',
  'rs',
  'inr',
  'rupees',
  'lakh',
  'crore',
  // Hindi / Hinglish
  'banao',
  'dikhao',
  'batao',
  'kharcha',
  'bikri',
  'naafa',
  'nafa',
  'baaki',
  'bakaya',
  'hisaab',
  'paisa',
  'paise',
  'udhaar',
  'vishleshan',
  'tulna',
];

export function normalize(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}₹&\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const KEYWORD_PATTERNS = FINANCIAL_KEYWORDS.map(
  (k) =>
    [k, new RegExp(`(^|[^\\p{L}])${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u')] as const,
);

export interface Classification {
  category: Category;
  /** Financial keywords found in the query. */
  keywords: string[];
  /** Small talk and a financial question in one message (seed 003 §3.4). */
  crossover: boolean;
}

/** The zero-cost keyword classifier of seed 003 §3.1. */
export function classify(query: string): Classification {
  const text = normalize(query);
  const keywords = KEYWORD_PATTERNS.filter(([, re]) => re.test(text)).map(([k]) => k);
  const chatty = GENERAL_CHAT.some((re) => re.test(text));
  if (keywords.length > 0) return { category: 'unified', keywords, crossover: chatty };
  return { category: 'general_chat', keywords, crossover: false };
}
