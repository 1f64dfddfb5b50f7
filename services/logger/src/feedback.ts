/** An implicit feedback signal about a request's answer, read from the user's next query. */
export interface ImplicitSignal {
  signal: 'rephrase' | 'correction' | 'follow_up' | 'action_taken';
  score: number;
}

/** The previous request of the conversation, as far as the signals need it. */
export interface PreviousRequest {
  query: string | null;
  status: string;
  is_write_operation: boolean;
}

/** Keyword overlap above which the next query is the same question again (more than 60 % of the keywords shared). */
export const REPHRASE_OVERLAP = 0.6;
/** Words at most in a follow-up ("and last month?", "only Acme"). */
export const FOLLOW_UP_MAX_WORDS = 6;

const STOPWORDS = new Set(
  (
    'a an the of for to in on at by with from and or me my our us we i you your it its this that these those ' +
    'is are was were be been do does did can could would should will please show list give get tell what ' +
    'which who how all any some there much many'
  ).split(' '),
);

/** Verbs that order a write (the verbs write tools' names begin with, plus how users say them). */
const WRITE_VERBS = new Set(
  (
    'create update delete void approve send file import merge adjust reconcile ' +
    'record add make pay raise issue post book enter generate cancel edit change remove'
  ).split(' '),
);

// Marks (\p{M}) belong to their word: a Devanagari vowel sign is not a word break.
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * How users say the answer was wrong, in English, Hinglish and Hindi, matched on the query's
 * words single-spaced and padded with a space. Each cue needs more than a lone negative word, so
 * "no of invoices" (number of), "no thanks" or "what is wrong with INV-5" are not corrections.
 */
const CORRECTION_CUES: readonly RegExp[] = [
  /^ (no|nope|nah) (?!(of|thanks|thank|thx|need|worries|problem) )\S/,
  / (is|are|was|were|looks?|seems?|thats|its|all) (wrong|incorrect|inaccurate) (?!with )/,
  / (wrong|incorrect|inaccurate) (answer|number|numbers|total|totals|amount|amounts|figures?|data|results?|balance|report)s? /,
  / (not|isnt|arent|wasnt) (right|correct|accurate) /,
  / not what i (asked|meant|wanted|need|needed|was looking for) /,
  /^ (but )?i (meant|asked|said|wanted|was asking) /,
  / (doesnt|does not|dont|do not) (add up|match|tally) /,
  / (galat|galath|galt|ghalat) /,
  / (sahi|sahee|thik|theek) (nahi|nahin|nai) /,
  / (maine|mene|meine) .*(pucha|poocha|puchha|maanga|manga|kaha) tha /,
  / ग\u093C?लत /,
  / (सही|ठीक) (नहीं|नही) /,
  / मैंने .*(पूछा|माँगा|मांगा|कहा) था /,
];

/** Whether the query says the answer before it was wrong ("that's wrong", "no, I meant March", "galat hai"). */
export function saysWrong(query: string): boolean {
  const text = ` ${words(query.normalize('NFC').replace(/['’`]/g, '')).join(' ')} `;
  return CORRECTION_CUES.some((cue) => cue.test(text));
}

/** The query's keywords: its words without stopwords and single letters. */
export function keywords(text: string): Set<string> {
  return new Set(words(text).filter((w) => w.length > 1 && !STOPWORDS.has(w)));
}

/** Shared keywords over the keywords of the longer query: 1 for the same question, 0 for unrelated ones. */
export function keywordOverlap(a: string, b: string): number {
  const ka = keywords(a);
  const kb = keywords(b);
  const larger = Math.max(ka.size, kb.size);
  if (larger === 0) return 0;
  let shared = 0;
  for (const k of ka) if (kb.has(k)) shared += 1;
  return shared / larger;
}

/**
 * The signal the next query gives about the previous answer, or null:
 * asking again in other words (rephrase, −1) says the answer missed; saying it was wrong
 * (correction, −1) says so outright; ordering a write after a read answer (action taken, +2) says
 * it was acted on; a short query building on it (follow-up, +1) says it was useful. One signal per
 * query, in that order of precedence.
 */
export function implicitSignal(previous: PreviousRequest, next: string): ImplicitSignal | null {
  if (!previous.query) return null;
  if (keywordOverlap(previous.query, next) > REPHRASE_OVERLAP) return { signal: 'rephrase', score: -1 };
  if (previous.status !== 'answered') return null;
  if (saysWrong(next)) return { signal: 'correction', score: -1 };
  const leading = words(next).slice(0, 3);
  if (!previous.is_write_operation && leading.some((w) => WRITE_VERBS.has(w))) {
    return { signal: 'action_taken', score: 2 };
  }
  const count = words(next).length;
  if (count > 0 && count <= FOLLOW_UP_MAX_WORDS) return { signal: 'follow_up', score: 1 };
  return null;
}
