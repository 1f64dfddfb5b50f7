/** What an answer claims was done in the books, in English, Hindi and Hinglish. */
import { parseToolName, verbClass } from '@munim/contracts';
import { isRow } from './output-guard.ts';

/** Alternatives matched as whole words in any script ("add" is not found in "address", "था" not in "थाना"). */
function words(alternatives: readonly string[] | string): RegExp {
  const body = typeof alternatives === 'string' ? alternatives : alternatives.join('|');
  return new RegExp(String.raw`(?<![\p{L}\p{M}\p{N}'])(?:${body})(?![\p{L}\p{M}\p{N}])`, 'iu');
}

/** Past forms that report a change to the books, whichever tool would have made it. */
const CHANGED =
  'created|recorded|saved|sent|e-?mailed|mailed|voided|deleted|removed|cancell?ed|approved|rejected|' +
  'updated|edited|changed|modified|renamed|posted|added|filed|submitted|issued|raised|booked|entered|' +
  'logged|registered|marked|paid|applied|allocated|reconciled|imported|merged|archived|restored|' +
  'refunded|reversed|written\\s+off|adjusted|transferred|deposited|generated|converted|settled|received|uploaded|attached|' +
  'shared|delivered|dispatched|forwarded|drafted|passed|set\\s+up';
/** Statuses of a document: "is paid" or a lone "Paid ✔" describes a record, it does not report a change. */
const STATUS =
  /^(?:paid|unpaid|sent|approved|voided|filed|reconciled|submitted|cancell?ed|received|rejected|posted|e-?mailed|applied|overdue|draft)$/i;
/** Words a change is named by in Hinglish and Hindi, and English verbs used in Hinglish ("void kar diya"). */
const CHANGE_STEMS =
  'record|create|add|update|delete|void|cancel|approve|post|file|send|save|submit|enter|mark|issue|reconcile|' +
  'transfer|adjust|apply|book|generate|edit|change|remove|reverse|refund|entry|darj|radd|manzoor|manjoor|jama|' +
  'दर्ज|रद्द|मंज़ूर|मंजूर|अप्रूव|पोस्ट|फ़ाइल|फाइल|अपडेट|सेव|जमा|कैंसल|डिलीट|वॉइड|रिकॉर्ड|ऐड|सबमिट|जारी|एंट्री';

const NEGATION = words(
  "not|no(?!\\.\\s*\\d)|never|nothing|none|neither|nor|without|cannot|can't|couldn't|wasn't|weren't|isn't|aren't|" +
    "hasn't|haven't|hadn't|didn't|doesn't|don't|won't|wouldn't|failed|fails|failure|unable|unsuccessful|errors?|" +
    'nahi|nahin|nhi|mat|bina|नहीं|नही|न|मत|असफल|विफल|बिना',
);
/** Offers, questions, plans and conditions: nothing is said to be done. */
const HYPOTHETICAL = words(
  'if|unless|once|whenever|would|could|should|shall|will|may|might|must|going to|want me to|like me to|let me|' +
    'about to|ready to|as soon as|chahiye|chahenge|doon|dun|karun|karoon|karu|karenge|karunga|karungi|denge|dunga|' +
    'dungi|hoga|hogi|honge|jayega|jaayega|jayegi|karne|karna|चाहिए|दूँ|दूं|करूँ|करूं|करें|दें|होगा|होगी|होंगे|' +
    'जाएगा|जाएगी|करने|करना',
);
/** Said of something done before this turn: "already", "earlier", Hindi past perfect ("था", "tha"), "chuka hai". */
const PRIOR = words(
  'already|earlier|previously|ago|yesterday|recently|in this chat|as i mentioned|as mentioned|' +
    'last (?:week|month|year|quarter|fy|time)|pichhle|pichle|pichhli|pichli|pehle|pahle|kal|tha|thi|thin|' +
    '(?:hue|hui|gaye|gayi|kiye|diye) the|chuk[aie](?!\\s+(?:diya|di|diye|do|de|dena))|था|थी|थे|थीं|पहले|पिछले|पिछली|कल|' +
    'चुक(?:ा|ी|े)(?!\\s+(?:दिया|दी|दिए|दो|दें))',
);
const MONTH =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
/** A period the sentence is about ("in March", "this month", "so far"): it describes records of that time. */
const PERIOD = words(
  `this (?:week|month|year|quarter)|so far|to date|till date|till now|in (?:${MONTH}|q[1-4]|fy|\\d{4})|since \\S+|` +
    `on (?:mon|tues|wednes|thurs|fri|satur|sun)day|at \\d{1,2}[:.]\\d{2}|इस (?:महीने|साल|हफ्ते|हफ़्ते)|` +
    `is (?:mahine|saal|hafte)|(?:${MONTH}) (?:ko|mein|me|को|में)`,
);
const DATE = new RegExp(
  String.raw`(?<![\p{N}/.-])(?:\d{1,2}[/-]\d{1,2}(?:[/-]\d{2,4})?|\d{1,2}\.\d{1,2}\.\d{2,4})(?![\p{N}/-])|` +
    String.raw`(?<![\p{L}\p{N}])(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:${MONTH})\.?(?:,?\s+\d{4})?|(?:${MONTH})\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?)(?![\p{L}\p{N}])`,
  'giu',
);
/** A date that is a field of the record ("due 15/04", "dated 12/03", "changed to 20/03"), not when something happened. */
const FIELD_BEFORE =
  /(?:due|dated|date|for|to|till|until|by|from|before|through|valid|expiry|expires|effective)(?:\s+(?:on|date|by))?\s*:?\s*(?:the\s+)?$/i;

/** Whether the clause places what it says in a time: a date of when, or a period. */
function placedInTime(clause: string): boolean {
  if (PERIOD.test(clause)) return true;
  for (const m of clause.matchAll(DATE))
    if (!FIELD_BEFORE.test(clause.slice(0, m.index).trimEnd())) return true;
  return false;
}

/** The assistant says it did it: "I've recorded", "maine … kar diya", "मैंने … दर्ज", "bana diya". */
function agentive(clause: string, past: string): boolean {
  const first = new RegExp(
    String.raw`(?<![\p{L}'])(?:i|we)(?:'ve|'d|\s+have|\s+had)?(?:\s+(?:just|now|also|successfully|quickly|then|gone ahead and|went ahead and))*\s+(?:${past})(?![\p{L}])`,
    'iu',
  ).exec(clause);
  // "I've added a GST column to the table" changes the answer, not the books.
  if (first && !REPORT_OBJECT.test(clause.slice(first.index + first[0].length))) return true;
  if (
    words('maine|humne|hamne|मैंने|हमने').test(clause) &&
    (words(CHANGE_STEMS).test(clause) || COMPOUND.test(clause))
  )
    return true;
  return COMPOUND.test(clause);
}
const REPORT_OBJECT =
  /^\s+(?:(?:a|an|the|this|that|your|new|separate)\s+)*(?:[\p{L}-]+\s+)?(?:column|table|chart|report|summary|list|view|filter|breakdown|figures|totals|analysis|graph|row)s?(?![\p{L}])/iu;
/** Hindi and Hinglish perfective of doing: "kar diya", "bhej diya", "बना दिया", "रद्द कर दिया". */
const COMPOUND = words(
  '(?:kar|bana|hata|bhej|jod|mita|badal|chuka|daal|dal|laga)\\s+(?:diya|di|diye|dia|diyaa)|kar\\s+(?:liya|li|liye|lia)|' +
    '(?:कर|बना|हटा|भेज|जोड़|मिटा|बदल|चुका|डाल|लगा)\\s+(?:दिया|दी|दिए|दिये|दीं)|कर\\s+(?:लिया|ली|लिए)',
);
/** "Done", "All set", "went through", "ho gaya", "ban gaya", "मंज़ूर हो गया". */
const COMPLETION = new RegExp(
  String.raw`^(?:(?:great|ok|okay|sure|yes|haan|ji)[\s,!.]+)?(?:done|all done|all set|sorted|completed|finished|success|ho gaya|ho gayi|ho gaye|हो गया|हो गई|हो गए)(?![\p{L}\p{M}])|` +
    words(
      `went through|gone through|taken care of|ban gaya|ban gayi|ban gaye|बन गया|बन गई|बन गए|(?:${CHANGE_STEMS})\\s+(?:ho|हो)\\s+(?:gaya|gayi|gaye|gya|गया|गई|गयी|गए)`,
    ).source,
  'iu',
);
/** A payment "ho gaya" is as often a status read off a record as a change: as weak as "has been paid". */
const PAID_DONE = words('(?:payment|bhugtan|भुगतान)\\s+(?:ho|हो)\\s+(?:gaya|gayi|gaye|gya|गया|गई|गयी|गए)');
/** Another party did it ("Acme ne … kar diya hai"): a fact read off the books. */
const THIRD_PARTY = /(?:^|\s)(?!(?:maine|humne|hamne|मैंने|हमने)\s)[\p{L}\p{N}-]+\s+(?:ne|ने)(?=\s|$)/iu;
const SUCCESSFULLY = words('successfully|सफलतापूर्वक|safaltapurvak|kamyabi se|safalta se');
const NOW = words('now|as requested|as asked|for you');
/** Passive and perfect: "has been created", "was voided", "is updated", "भेजा गया", "post hui". */
function passive(clause: string, past: string): Strength | undefined {
  const adverbs = String.raw`(?:\s+(?:just|now|also|already|successfully|automatically))*`;
  const perfect = new RegExp(
    String.raw`(?<![\p{L}])(?:has|have|had)${adverbs}\s+been${adverbs}\s+(?:${past})(?![\p{L}])|(?<![\p{L}])(?:was|were|got|gets|get)${adverbs}\s+(?:${past})(?![\p{L}])`,
    'iu',
  );
  if (perfect.test(clause) || HINDI_PASSIVE.test(clause)) return 'weak';
  const present = new RegExp(String.raw`(?<![\p{L}])(?:is|are)${adverbs}\s+(${past})(?![\p{L}])`, 'iu').exec(
    clause,
  );
  if (present) return STATUS.test(present[1] ?? '') ? 'status' : 'weak';
  return undefined;
}
const HINDI_PASSIVE = words(
  '(?:किया|किए|किये|की|भेजा|भेजी|भेजे|बनाया|बनाई|बनाए|जोड़ा|जोड़ी|हटाया|हटाई|बदला|बदली|मिटाया)\\s+(?:गया|गई|गयी|गए)|' +
    `(?:kiya|kiye|ki|bheja|bheji|bheje|banaya|banayi|banaye|joda|jodi|hataya|badla|mitaya)\\s+(?:gaya|gayi|gaye|gya)|(?:${CHANGE_STEMS})\\s+(?:hua|hui|hue|हुआ|हुई|हुए)`,
);

const AUX =
  /^(?:is|are|was|were|be|been|being|has|have|had|will|would|shall|should|can|could|may|might|must|do|does|did|am)$/;
const PRONOUN = /^(?:i|we|you|they|he|she|it|who|which|that|this|these|those|here|there|yes|no)$/;
const QUANTIFIER = /^(?:all|fully|partially|already|still|not|just|only)$/;
const FINITE =
  /^(?:is|are|was|were|came|comes|stay|stays|show|shows|remain|remains|appear|appears|total|totals|has|have|had|include|includes)$/;
const RECORD =
  /^(?:invoices?|bills?|payments?|expenses?|entry|entries|journals?|vouchers?|customers?|vendors?|suppliers?|contacts?|notes?|accounts?|returns?|gstr-?\w*|e-?invoices?|receipts?|transactions?|transfers?|deposits?|challans?|products?|items?|orders?|quotes?|estimates?|timesheets?|refunds?|records?|documents?)$/;
const DOC_REF = /^(?:[A-Z]{2,6}-?\d+|#\d+)$/;

/**
 * A headline reporting a change: "Payment recorded ✅", "Journal JE-12 posted to the ledger",
 * "Deleted.", "Transferred ₹10,000 …". Not a label ("Paid on: …", "GSTR-1 (Feb): filed"), an
 * adjective ("Voided invoices stay …", "all reconciled") or a status tag ("Paid ✔").
 */
function headline(clause: string, past: string): boolean {
  const raw = clause.split(/\s+/).filter((t) => /[\p{L}\p{N}₹#]/u.test(t));
  const bare = raw.map((t) => t.replace(/^[^\p{L}\p{N}₹#]+|[^\p{L}\p{N}]+$/gu, ''));
  const isPast = new RegExp(`^(?:${past})$`, 'i');
  let k = bare.findIndex((w, i) => isPast.test(w) || isPast.test(`${w} ${bare[i + 1] ?? ''}`));
  if (k < 0 || k > 8) return false;
  const next = raw[k + 1];
  if (k === 0) {
    if ((raw[0] ?? '').endsWith(':')) return false;
    if (next === undefined) return !STATUS.test(bare[0] ?? '');
    return !next.endsWith(':') && !/^[a-z]+s$/.test(bare[k + 1] ?? '') && bare[k + 1]?.toLowerCase() !== 'by';
  }
  // In "INV-0042: status Paid" the subject is what follows the label.
  const from = raw.slice(0, k).findLastIndex((t) => t.endsWith(':')) + 1;
  const subject = bare.slice(from, k).map((w) => w.toLowerCase());
  if (subject.length === 0 || QUANTIFIER.test(subject.at(-1) ?? '')) return false;
  if (PRONOUN.test(subject[0] ?? '') || subject.some((w) => AUX.test(w) || FINITE.test(w))) return false;
  // "Invoices created: 18" counts records.
  if ((raw[k] ?? '').endsWith(':') && /^\d+$/.test(bare[k + 1] ?? '')) return false;
  if (!bare.slice(from, k).some((w) => RECORD.test(w.toLowerCase()) || DOC_REF.test(w))) return false;
  if (next && /^by$/i.test(bare[k + 1] ?? '')) return false;
  for (k += 1; k < bare.length && /^(?:successfully|and)$/i.test(bare[k] ?? ''); k++);
  return !bare.slice(k).some((w) => FINITE.test(w.toLowerCase()));
}

/**
 * How plainly a clause claims a change: `strong` the assistant's own report ("I've sent", "✅
 * Sent to Acme"), `weak` a passive that may as well describe the records ("has been sent"),
 * `status` a document's state ("is approved") that is a claim only of a write the turn attempted.
 */
type Strength = 'strong' | 'weak' | 'status';
interface Claim {
  strength: Strength;
  clause: string;
}

/** "voucher no. 87", "Rs. 500": a piece ending in an abbreviation does not end a sentence. */
export function abbreviated(piece: string): boolean {
  return /(?:^|\s)(?:no|nos|rs|dr|cr|vs|approx|e\.g|i\.e|ltd|inc|co|st)\.$/i.test(piece);
}

/** The clauses of an answer a claim can be made in, each with its sentence: code blocks, table rows and quoted text aside. */
function clausesOf(text: string): { clause: string; sentence: string }[] {
  const prose = text
    .normalize('NFKC')
    .replace(/[‘’]/g, "'")
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .replace(/"[^"\n]*"|“[^”\n]*”/g, ' ');
  const out: { clause: string; sentence: string }[] = [];
  for (const line of prose.split('\n')) {
    if (isRow(line)) continue;
    const sentences: string[] = [];
    for (const piece of line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').split(/(?<=[.!?।])\s+/)) {
      const last = sentences.at(-1);
      if (last !== undefined && abbreviated(last)) sentences[sentences.length - 1] = `${last} ${piece}`;
      else sentences.push(piece);
    }
    for (const s of sentences)
      for (const c of s.split(
        /\s*(?:;|—|–|\s-\s|,\s*(?:and|but|so|while|though|although|whereas|which)\s)\s*/i,
      ))
        if (c.trim()) out.push({ clause: c.trim(), sentence: s });
  }
  return out;
}

/** What one clause claims was done in the books, and how plainly; nothing for a denial, offer, question or past fact. */
function claimOf(clause: string, sentence: string, past: string): Strength | undefined {
  const c = clause.toLowerCase();
  if (NEGATION.test(c) || HYPOTHETICAL.test(c) || /'ll(?![\p{L}])|\?\s*$/u.test(c) || PRIOR.test(c))
    return undefined;
  if (THIRD_PARTY.test(c)) return undefined;
  if (agentive(c, past)) return 'strong';
  if (COMPLETION.test(c.replace(/^[^\p{L}\p{N}]+/u, ''))) return PAID_DONE.test(c) ? 'weak' : 'strong';
  // "Created — 02/03/2026 by Priya": the time may sit across a dash from the verb.
  if (placedInTime(sentence.toLowerCase())) return undefined;
  if (SUCCESSFULLY.test(c) || (NOW.test(c) && new RegExp(`(?:${past})`, 'iu').test(c))) return 'strong';
  if (headline(clause, past)) return 'strong';
  return passive(c, past) ?? (PAID_DONE.test(c) ? 'weak' : undefined);
}

const asPattern = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, String.raw`\s+`);

/** Every clause of `text` that says a change was made; `verbs` are the past forms of the turn's own writes. */
export function claimsIn(text: string, verbs: readonly string[] = []): Claim[] {
  const past = [...verbs.map(asPattern), CHANGED].join('|');
  return clausesOf(text).flatMap(({ clause, sentence }) => {
    const strength = claimOf(clause, sentence, past);
    return strength ? [{ strength, clause }] : [];
  });
}

export const FAILURE = words(
  "failed|couldn't|could not|unable to|was not able|wasn't able|did not go through|didn't go through|" +
    'error occurred|went wrong|(?:ban |ho )?nahi (?:ho |ban )?pa(?:ya|yi|aya)|nahi hua|nahi hui|error aa|' +
    'नहीं हो पाया|नहीं हो पाई|नहीं हो सका|नहीं बन पाया|असफल|विफल',
);

/** Past tenses that do not follow the rule (verb + ed). */
const IRREGULAR_PAST: Readonly<Record<string, string>> = {
  send: 'sent',
  resend: 'resent',
  pay: 'paid',
  make: 'made',
  set: 'set',
  reset: 'reset',
  writeoff: 'written off',
  withdraw: 'withdrawn',
  lookup: 'looked up',
};

/** "revert" → "reverted", "approve" → "approved", "submit" → "submitted", "pay" → "paid". */
export function pastTense(verb: string): string {
  const irregular = IRREGULAR_PAST[verb];
  if (irregular) return irregular;
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  if (/^(submit|transfer|log|drop|cancel)$/.test(verb)) return `${verb}${verb.at(-1)}ed`;
  return `${verb}ed`;
}

/** Words an answer reports a verb's change with, besides its own past tense. */
const SAME_CHANGE: Readonly<Record<string, readonly string[]>> = {
  create: ['added', 'made', 'raised', 'issued', 'generated', 'saved'],
  add: ['created', 'saved'],
  record: ['logged', 'entered', 'booked', 'posted', 'added', 'saved'],
  send: ['emailed', 'e-mailed', 'mailed', 'delivered'],
  email: ['sent', 'mailed'],
  delete: ['removed'],
  remove: ['deleted'],
  void: ['cancelled', 'canceled'],
  cancel: ['voided'],
  update: ['edited', 'modified', 'changed', 'set'],
  edit: ['updated', 'modified', 'changed'],
  pay: ['recorded', 'settled'],
  receive: ['recorded', 'applied'],
  file: ['submitted'],
};

/** The past forms an answer would claim the write of `tool` with: its verbs' ("Timesheet reverted") and their synonyms. */
export function changeWords(tool: string): string[] {
  const { verb, words: parts } = parseToolName(tool);
  const verbs = [verb, ...parts.filter((w) => verbClass(w) !== undefined && verbClass(w) !== 'read')];
  return [
    ...new Set(verbs.flatMap((v) => (v === undefined ? [] : [pastTense(v), ...(SAME_CHANGE[v] ?? [])]))),
  ];
}

/** A claim in Hindi words ("भेजा गया", "payment ho gaya") names no English verb to tell which write it is of. */
export const ENGLISH_CHANGE = words(CHANGED);

export const mentions = (clause: string, tool: string) =>
  changeWords(tool).some((w) => words(asPattern(w)).test(clause));
