import { normalize } from './text.ts';

/**
 * Orders to change the books, told apart from questions about them without an LLM. In English the
 * order's verb leads its clause, after politeness and request openers ("please void …", "can you
 * void INV-0042?", "I want to approve …"); a change word elsewhere is a status or a noun ("voided
 * invoices", "bills to pay"). Hindi and Hinglish put the verb last: a change word before an
 * imperative ("payment kar do", "रद्द करो") orders, "kaunse bill approve karne hain" asks.
 */

/** Base forms of English verbs that change the books. */
const CHANGE_VERBS = new Set(
  `void unvoid cancel delete remove approve reject pay settle record create add make raise issue generate send resend
  email mail forward share file submit post book enter log mark update edit change modify rename set adjust correct
  apply allocate reconcile import merge archive restore refund reverse transfer deposit withdraw convert upload attach
  close reopen lock receive duplicate clone copy`.split(/\s+/),
);
/** Words a clause may open with before its verb: politeness, fillers and ways of asking. */
const OPENERS = [
  'please',
  'pls',
  'plz',
  'kindly',
  'ok',
  'okay',
  'so',
  'now',
  'then',
  'also',
  'just',
  'quickly',
  'hey',
  'hi',
  'hello',
  'munim',
  'munimji',
  'ji',
  'sir',
  'yes',
  'yeah',
  'sure',
  'go ahead and',
  'let s',
  'lets',
  'let us',
  'can you',
  'could you',
  'would you',
  'will you',
  'can u',
  'could u',
  'would u',
  'will u',
  'would you mind',
  'is it possible to',
  'possible to',
  'i want to',
  'i wanna',
  'i would like to',
  'i d like to',
  'i want you to',
  'i need you to',
  'i need to',
  'we need to',
  'need to',
  'i have to',
  'we have to',
  'have to',
  'want to',
  'help me',
  'help me to',
  'can we',
  'could we',
  'can i',
  'could i',
  'may i',
  'should i',
  'should we',
  'you should',
  'time to',
]
  .map((o) => o.split(' '))
  // Longest first: "would you mind" before "would you".
  .sort((a, b) => b.length - a.length);
/** "send me the P&L", "update me on cash": the answer comes to the user, the books stay as they are. */
const TO_THE_USER = new Set(['me', 'us', 'mujhe', 'hume', 'humein', 'hamein']);
/** After these the verb was a noun: "change in revenue", "record of payments", "add up the totals", "reverse charge". */
const NOUN_AFTER = new Set(['of', 'in', 'up', 'charge', 'dated']);
/** Reports are made, not recorded: "create a P&L report", "make a list of unpaid bills". */
const REPORT =
  /(^| )(report|reports|statement|summary|list|pnl|p&l|balance sheet|cash flow|trial balance|chart|graph|dashboard|breakdown|analysis|pdf|excel|csv)( |$)/;
const MAKING = new Set(['create', 'make', 'generate', 'prepare', 'build', 'produce', 'compile']);
/** A clause that ends by asking to see ("void invoice list", "cancel hue invoice dikhao") is a read. */
const ENDS_READING =
  /( |^)(list|report|details|dikhao|dikha do|dikhaiye|dikhana|batao|bata do|bataiye|batana|दिखाओ|दिखा दो|बताओ|बता दो)$/;
/** Past statements of the user's own transactions to be recorded: "I paid Gupta ₹5,000 today". */
const DONE_BY_USER = new Set([
  'paid',
  'received',
  'spent',
  'bought',
  'sold',
  'purchased',
  'deposited',
  'transferred',
  'withdrew',
]);

const nfkc = (s: string) => s.normalize('NFKC');
/** Hinglish and Hindi words naming a change, before an imperative ("payment kar do", "भुगतान करो"). */
const CHANGE_WORDS = [
  ...CHANGE_VERBS,
  'payment',
  'bhugtan',
  'entry',
  'darj',
  'radd',
  'manzoor',
  'manjoor',
  'jama',
  'write off',
  'रद्द',
  'मंज़ूर',
  'मंजूर',
  'भुगतान',
  'दर्ज',
  'अपडेट',
  'डिलीट',
  'कैंसल',
  'जमा',
  'पोस्ट',
  'फ़ाइल',
  'फाइल',
  'अप्रूव',
  'वॉइड',
  'एंट्री',
  'ऐड',
  'सेव',
  'पेमेंट',
  'रिकॉर्ड',
].map(nfkc);
const IMPERATIVE = [
  'kar do',
  'kardo',
  'kar dijiye',
  'kar dijie',
  'kar de',
  'kar den',
  'kar dein',
  'kar dena',
  'karo',
  'kariye',
  'kijiye',
  'kijie',
  'karein',
  'karen',
  'karwa do',
  'kara do',
  'kar sakte ho',
  'kar sakte hain',
  'kar sakti ho',
  'kar doge',
  'kar denge',
  'करो',
  'कर दो',
  'कर दीजिए',
  'कीजिए',
  'करें',
  'करिए',
  'कर दें',
  'कर सकते हैं',
].map(nfkc);
/** "I need to …": an order unless the sentence asks which or how much ("kaunse bill approve karna hai"). */
const NEEDED = ['karna hai', 'karni hai', 'karne hai', 'karna h', 'करना है'].map(nfkc);
const QUESTION_WORD =
  /(^| )(kaunse|kaunsa|kaunsi|kaun|konse|konsa|kitna|kitne|kitni|kab|kahan|kyun|kyon|which|what|कौन|कौनसे|कौनसा|कितना|कितने|कब|कहाँ|क्यों)( |$)/;
/** Hinglish and Hindi verbs that are orders on their own: "invoice banao", "reminder bhejo", "हटाओ". */
const ORDER_VERBS = [
  'banao',
  'bana do',
  'banado',
  'banaiye',
  'bana dijiye',
  'bhejo',
  'bhej do',
  'bhejdo',
  'bhejiye',
  'bhej dijiye',
  'hatao',
  'hata do',
  'hatado',
  'mitao',
  'mita do',
  'jodo',
  'jod do',
  'chukao',
  'chuka do',
  'daalo',
  'daal do',
  'dalo',
  'badlo',
  'badal do',
  'बनाओ',
  'बना दो',
  'बनाइए',
  'भेजो',
  'भेज दो',
  'भेजिए',
  'हटाओ',
  'हटा दो',
  'मिटाओ',
  'मिटा दो',
  'जोड़ो',
  'जोड़ दो',
  'चुकाओ',
  'चुका दो',
  'डालो',
  'डाल दो',
].map(nfkc);

const has = (text: string, phrase: string) => ` ${text} `.includes(` ${phrase} `);
const hasAny = (text: string, phrases: readonly string[]) => phrases.some((p) => has(text, p));

/** The clause without the politeness and request openers it starts with. */
function afterOpeners(tokens: string[]): string[] {
  let rest = tokens;
  for (let stripped = true; stripped && rest.length > 0; ) {
    stripped = false;
    for (const opener of OPENERS) {
      if (opener.every((w, i) => rest[i] === w)) {
        rest = rest.slice(opener.length);
        stripped = true;
        break;
      }
    }
  }
  return rest;
}

/** An English clause that leads with a change verb: "void the invoice", "can you approve BILL-0007". */
function englishOrder(clause: string): boolean {
  const tokens = clause.split(' ');
  const rest = afterOpeners(tokens);
  const [first, next] = rest;
  if (first === undefined || ENDS_READING.test(clause)) return false;
  // "would you mind voiding …"; elsewhere "closing balance" is no order.
  const minded = tokens[tokens.length - rest.length - 1] === 'mind';
  const verb = CHANGE_VERBS.has(first) ? first : minded ? gerundVerb(first) : undefined;
  if (verb && (next === undefined || !NOUN_AFTER.has(next))) {
    if (['send', 'email', 'mail', 'forward', 'share', 'update'].includes(verb) && TO_THE_USER.has(next ?? ''))
      return false;
    if (MAKING.has(verb) && REPORT.test(clause)) return false;
    return true;
  }
  if ((first === 'do' && next === 'it') || (first === 'write' && next === 'off')) return true;
  return (first === 'i' || first === 'we') && DONE_BY_USER.has(next ?? '');
}

function gerundVerb(word: string): string | undefined {
  const stem = word.slice(0, -3);
  return [stem, `${stem}e`, stem.slice(0, -1)].find((v) => CHANGE_VERBS.has(v));
}

/** A Hinglish or Hindi clause that ends in an order: "bill ka payment kar do", "सभी बिल मंज़ूर करो". */
function hindiOrder(clause: string): boolean {
  for (const imperative of IMPERATIVE) {
    const at = ` ${clause} `.indexOf(` ${imperative} `);
    if (at > 0 && hasAny(clause.slice(0, at), CHANGE_WORDS)) return true;
  }
  for (const needed of NEEDED) {
    const at = ` ${clause} `.indexOf(` ${needed} `);
    if (at > 0 && hasAny(clause.slice(0, at), CHANGE_WORDS) && !QUESTION_WORD.test(clause)) return true;
  }
  if (!hasAny(clause, ORDER_VERBS)) return false;
  if (hasAny(clause, ['mujhe', 'hume', 'humein', 'मुझे', 'हमें'])) return false;
  return !REPORT.test(clause);
}

/** Whether `query` orders a change to the books, in English, Hindi or Hinglish, however politely. */
export function ordersChange(query: string): boolean {
  const clauses = nfkc(query)
    .toLowerCase()
    .split(/[,.;:!?\n।]+| (?:and then|and|then|after that|also|aur|phir|fir|फिर|और) /u)
    .map((c) => normalize(c))
    .filter((c) => c !== '');
  return clauses.some((c) => englishOrder(c) || hindiOrder(c));
}
