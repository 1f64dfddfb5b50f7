import type { AnalyticMeasure } from '@munim/contracts';
import { normalize } from '../text.ts';

/**
 * What a finance question asks, read off its words in English, Hinglish and Hindi: the measure,
 * whether it ranks ("who owes most", "top 5"), and the party it is limited to ("for Acme Corp").
 * The period is read apart (`@munim/finance` readPeriod). Undefined: not a question munim answers
 * by code; it goes to the model.
 */
export interface FinanceQuestion {
  measure: AnalyticMeasure;
  /** The customer or vendor named, as written. */
  party?: string;
  top?: number;
  /** The question compares ("vs", "compared with", "se tulna"). */
  compares: boolean;
}

// Latin words are matched on word boundaries of the normalised text; Devanagari, which has no
// \b in JavaScript's sense, is matched as written.
const any =
  (...patterns: RegExp[]) =>
  (t: string) =>
    patterns.some((p) => p.test(t));

const GST = any(/\bgst\b|\bigst\b|\bcgst\b|\bsgst\b|\bgstr ?3b\b/, /जीएसटी/);
const OWE_OR_PAY = any(
  /\b(owe|owed|owing|payable|pay|paying|liability|due|deposit|dena|dene|bharna|bharni|jama|net|kitna|kitni|how much)\b/,
  /देना|भरना|जमा|कितना|कितनी/,
);
const CASH = any(
  /\b(cash|bank balance|bank balances|bank|balance in bank|nakad|nakdi|rokad|liquidity|funds?)\b/,
  /कैश|नकद|नक़द|बैंक|रोकड़/,
);
const CASH_FLOW_REPORT = /\bcash ?flow (statement|report)\b|\bcashflow statement\b/;
const FORECAST = any(
  /\b(forecast|projection|project|run short|running short|short of|run out|running out|shortfall|ahead|next \d+ weeks?|coming weeks?|13 weeks?|kam pad|kam padega|khatam|pad jayega|agle \d+ hafte|aane wale)\b/,
  /कम पड़|ख़त्म|खत्म|आने वाले|अगले/,
);
const RUNWAY = any(
  /\b(runway|burn rate|cash burn|burn|how long (will|would|can) (my |our |the )?(cash|money|funds?) last|months? of cash|kitne mahine chalega)\b/,
  /कितने महीने चलेगा/,
);
const UNUSUAL = any(
  /\b(unusual|unusually|anomal\w*|odd|strange|abnormal|spikes?|suspicious|unexpected|out of pattern|ajeeb|asamanya|asaamanya|zyada kharcha|jyada kharcha|gadbad)\b/,
  /अजीब|असामान्य|गड़बड़/,
);
const MARGIN = any(/\b(margins?|profitability)\b/, /मार्जिन/);
const DSO = any(
  /\b(dso|days sales outstanding|collection period|how long (do|does) (my |our )?customers? take|customers? take .* to pay|debtor days)\b/,
);
const DPO = any(/\b(dpo|days payables? outstanding|creditor days|how long (do|does) (i|we) take to pay)\b/);
const CURRENT_RATIO = any(/\b(current ratio|liquidity ratio|working capital ratio)\b/);
const BUDGET = any(/\b(budget|budgeted|budgets)\b/, /बजट/);
const OWED_TO_ME = any(
  /\b(owes? (me|us)|owed to (me|us)|owing (me|us)|receivables?|debtors?|to receive|to collect|collections?|paisa baaki|paise baaki|vasooli|vasuli|wasooli|udhaar|udhar)\b/,
  // "lena" alone is "to take": money to take from someone, or how much, is what is owed.
  /\b(se|paisa|paise|payment|rupaye|rupees|kitna|kitne|kitni)\b.*\b(lena|lene|leni|milna|milne|aana|aane)\b/,
  /\b(customers?|clients?|grahak)\b.*\b(owe|due|baaki|baki|bakaya|outstanding|pending|unpaid)\b/,
  /(से|पैसा|पैसे|कितना|कितने).*(लेना|लेने|मिलना)|वसूली|उधार|ग्राहक.*बकाया|बकाया.*ग्राहक/,
);
const I_OWE = any(
  /\b((do|did|does) (i|we) owe|(i|we) owe|payables?|creditors?|to pay (my |our )?(vendors?|suppliers?)|dena hai|dene hai|dena baaki|dena baki|chukana)\b/,
  /\b(vendors?|suppliers?|creditors?)\b.*\b(owe|owed|due|baaki|baki|bakaya|outstanding|pending|unpaid)\b/,
  /देना|देने|चुकाना|देनदारी|(सप्लायर|वेंडर).*बकाया/,
);
/** "Whose money is pending", "what is outstanding": with no side named, what customers owe. */
const DUE_WORD = any(
  /\b(kiska|kiske|kiski|kis ka|kis ke|paisa|paise)\b.*\b(baaki|baki|bakaya|pending|outstanding)\b/,
  /\b(baaki|baki|bakaya|outstanding)\b/,
  /बकाया|बाकी|बाक़ी/,
);
const MOST = any(
  /\b(most|top|highest|biggest|largest|maximum|max|sabse zyada|sabse jyada|sabse adhik|sab se zyada|sab se jyada|sabse bada|sabse bade)\b/,
  /सबसे/,
);
const OVERDUE = any(/\b(overdue|past due|late|delayed|der se|der)\b/, /देरी|देर/);
const DUE_SOON = any(
  /\b(due|falling due|payable|to pay|to be paid|to collect|expected)\b.*\b(this|next|coming|today|tomorrow|week|month|hafte|mahine|aaj|kal)\b/,
  /\b(this|next|coming|is|agle|aane wale)\b.*\b(week|hafte|month|mahine)\b.*\b(due|payable|to pay|dena|bharna)\b/,
);
const BILLS = any(/\b(bills?|purchases?|vendors?|suppliers?|payables?)\b/, /बिल|सप्लायर/);
const INVOICES = any(/\b(invoices?|customers?|clients?|receivables?|collections?)\b/, /इनवॉइस|ग्राहक/);
const PROFIT = any(
  /\b(profit|profits|profitable|net income|bottom line|loss|losses|earn|earned|earnings|munafa|munaafa|nafa|naafa|labh|faayda|fayda|kamaya|kamai|net profit|gross profit)\b/,
  /मुनाफ़ा|मुनाफा|लाभ|फ़ायदा|फायदा|कमाई|नुकसान/,
);
const SALES = any(
  /\b(sales?|sold|sell|selling|revenue|revenues|turnover|income|billing|bikri|bikree|becha|bechi|bikri hui)\b/,
  /बिक्री|बेचा|बेची|आय|टर्नओवर/,
);
const EXPENSES = any(
  /\b(expenses?|expenditure|spent|spend|spending|costs?|outgoings|kharcha|kharche|kharch|kharchon)\b/,
  /खर्च|ख़र्च/,
);
const COMPARES = any(
  /\b(vs|versus|compare|compared|comparison|against|than|tulna|mukable|mukabla|muqable)\b/,
  /तुलना|मुकाबले/,
);
/** A report asked for by name is shown as the report (an intent), not reduced to a figure. */
const REPORT =
  /\b(profit (and|&|n) loss|p ?(&|and|n) ?l|pnl|income statement|balance ?sheet|trial balance|cash ?flow|aging|ageing|aged|statement|report|ledger|day ?book|gstr ?[0-9]\w*)\b/;
/** Why, how to, advice and trends ask for reasoning over the figures: the model's to answer. */
const EXPLAIN =
  /\b(chahiye|chaiye|why|explain|explanation|reason|reasons|kyun|kyon|kyu|advice|advise|suggest|suggestion|tips?|should (i|we)|how (can|do|should) (i|we)|how to|what if|strategy|improve|reduce|increase|trend|trends|grew|growth|predict|analy[sz]e|analysis|insights?)\b|क्यों|सुझाव/;
/** Orders (record, pay, send …) are changes for the model, never a figure. */
const ORDER =
  /^(please )?(record|pay|send|create|make|add|enter|post|void|delete|cancel|remind|email|raise|issue|approve)\b/;

const LIST_ASK =
  /\b(show|list|display|view|see|get|give|which|what are|dikhao|dikha|batao|kaun se|kaunse|konse)\b|दिखाओ|कौन से/;
const AMOUNT_ASK = /\b(how much|total|amount|sum|kitna|kitni|kitne|value)\b|कितना|कितनी/;

const TOP_N = /\b(?:top|first|best|largest|biggest) (\d{1,2})\b|\b(\d{1,2}) (?:biggest|largest|top)\b/;

/** Words that end a party's name in a question: a period, a verb, another clause. */
const PARTY_END =
  /(पिछले|पिछला|इस|अगले|महीने|महीना|साल|वर्ष|हफ्ते|हफ़्ते|तिमाही|आज|कल|तक|में|कितना|कितनी|बकाया)|\b(q[1-4]|h[12]|fy\w*|\d{4}(?:-\d{2,4})?|jan\w*|feb\w*|mar\w*|apr\w*|may|june?|july?|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*|janvari|farvari|pichle|pichhle|pichla|iss|agle|agla|mahine|mahina|saal|sal|hafte|hafta|timahi|aaj|kal|abhi|tak|mein|me|this|last|next|previous|current|in|since|during|for|from|till|until|upto|up to|as of|between|today|yesterday|week|month|quarter|year|fy|vs|versus|compared|and|or|ka|ki|ke|se|ko|ne|hai|hain|tha|owes?|owed|paid|pay|is|are|was|were|has|have|had|did|do|does|overdue|due|outstanding|pending|baaki|baki|bakaya|kitna|kitni|how|much|total|please)\b/i;

/** Nouns that name a kind of party, not one party. */
const GENERIC_PARTY =
  /^(my |our |all |the |each |every |any )?(the|a|an|next|coming|customers?|clients?|vendors?|suppliers?|creditors?|debtors?|parties|party|people|business|company|me|us|them|you|everyone|anyone|sab|sabhi|grahak|logon|log|who|what|which|how|whom|kaun|kis|kisne|kisko|kiska|kiske|kiski|mera|meri|mere|hamara|humara|money|paisa|paise|cash|sales?|profit|expenses?|gst|tax|overdue|amount|ग्राहक|ग्राहकों|सप्लायर|सप्लायरों|वेंडर|वेंडरों|लोगों|सब|सभी|किस|किसका|किसको)$/;

/** Words that open a question before its party: "mujhe Acme se", "मेरे ग्राहकों से". */
const LEADING_PRONOUN =
  /^(?:(?:mujhe|mujhko|hume|humein|hamein|mere|meri|mera|hamare|hamari|humare|apne|my|our|please|pls|मुझे|हमें|मेरे|मेरी|मेरा|हमारे|अपने)\s+)+/i;

function cleanParty(raw: string): string | undefined {
  const cut = raw.search(PARTY_END);
  const name = (cut >= 0 ? raw.slice(0, cut) : raw).replace(LEADING_PRONOUN, '').trim().replace(/\s+/g, ' ');
  if (name.length < 2 || name.length > 120 || GENERIC_PARTY.test(name.toLowerCase())) return undefined;
  if (/^\d+$/.test(name)) return undefined;
  return name;
}

/**
 * The party a question is limited to: "for Acme Corp", "from Tata Steel", "does Acme owe me",
 * "Acme Corp ka kitna baaki hai", "Acme se kitna lena hai".
 */
export function partyOf(question: string): string | undefined {
  const text = question
    .replace(/[?!,;:"“”‘’]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const patterns = [
    /\b(?:does|did|has|is) (.+?) (?:owe|owes|owed|paid|pay|still owe)\b/i,
    /\b(?:for|from|of|to|by|with|against) (?:customer |vendor |supplier |party |client )?([A-Za-z0-9\u0900-\u097F][\w\u0900-\u097F&.'-]*(?: [\w\u0900-\u097F&.'-]+)*)/i,
    /^(?:how much |what )?([A-Za-z\u0900-\u097F][\w\u0900-\u097F&.'-]*(?: [\w\u0900-\u097F&.'-]+){0,5}) (?:ka|ki|ke|ko|se|ne|को|का|की|के|से|ने) /i,
    /^([A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,5}) (?:owes|owe|has)\b/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    const party = match?.[1] ? cleanParty(match[1]) : undefined;
    if (party) return party;
  }
  return undefined;
}

/** Reads a finance question's measure, ranking, party and comparison; undefined when it is none. */
export function readFinanceQuestion(question: string): FinanceQuestion | undefined {
  const t = normalize(question);
  if (ORDER.test(t) || REPORT.test(t) || EXPLAIN.test(t)) return undefined;
  const compares = COMPARES(t);
  const topMatch = TOP_N.exec(t);
  const top = topMatch ? Number(topMatch[1] ?? topMatch[2]) : undefined;
  const measure = measureOf(t);
  if (!measure) return undefined;
  const party = partyOf(question);
  // "Show overdue invoices" asks for the list, which its report shows with the aging; a party or an
  // amount ("how much is overdue") asks for a figure.
  if (
    (measure === 'receivables.overdue' || measure === 'payables.overdue') &&
    !party &&
    LIST_ASK.test(t) &&
    !AMOUNT_ASK.test(t)
  )
    return undefined;
  return {
    measure,
    ...(party ? { party } : {}),
    ...(top && top > 0 ? { top } : {}),
    compares,
  };
}

function measureOf(t: string): AnalyticMeasure | undefined {
  if (GST(t) && OWE_OR_PAY(t)) return 'gst.payable';
  if (BUDGET(t)) return 'budget';
  if (RUNWAY(t)) return 'kpi.runway';
  if (CASH(t) && FORECAST(t) && !CASH_FLOW_REPORT.test(t)) return 'cash.forecast';
  if (UNUSUAL(t)) return 'anomalies';
  if (CURRENT_RATIO(t)) return 'kpi.current_ratio';
  if (DSO(t)) return 'kpi.dso';
  if (DPO(t)) return 'kpi.dpo';
  if (MARGIN(t)) return 'kpi.margin';
  if (DUE_SOON(t) && !OVERDUE(t)) {
    if (BILLS(t) && !INVOICES(t)) return 'payables.due';
    if (INVOICES(t) && !BILLS(t)) return 'receivables.due';
  }
  if (I_OWE(t)) return MOST(t) ? 'payables.top' : OVERDUE(t) ? 'payables.overdue' : 'payables.total';
  if (OWED_TO_ME(t))
    return MOST(t) ? 'receivables.top' : OVERDUE(t) ? 'receivables.overdue' : 'receivables.total';
  if (DUE_WORD(t) && !BILLS(t))
    return MOST(t) ? 'receivables.top' : OVERDUE(t) ? 'receivables.overdue' : 'receivables.total';
  if (OVERDUE(t) && BILLS(t) && !INVOICES(t)) return 'payables.overdue';
  if (OVERDUE(t) && INVOICES(t)) return 'receivables.overdue';
  // "overdue amount for Acme": with no side named, what customers owe late.
  if (OVERDUE(t) && !BILLS(t) && /\b(amount|amounts|total|how much|kitna|balance)\b/.test(t))
    return 'receivables.overdue';
  if (CASH(t) && !CASH_FLOW_REPORT.test(t) && !/\bcash ?flow\b/.test(t)) return 'cash.today';
  if (PROFIT(t)) return 'profit';
  if (SALES(t)) return 'sales';
  if (EXPENSES(t)) return 'expenses';
  return undefined;
}
