/**
 * What a tool's description says it does: a description can make a tool stricter,
 * never laxer. It is read for a change ("Deletes the invoice", "…and marks it paid", "Use this to
 * approve…") or for running a statement the caller supplies ("Execute a SELECT query").
 */
import { singular, type VerbClass, verbClass } from './tool-names.ts';
import { VERB_NOUNS } from './tool-words.ts';

/** What a description says of the tool, quoted for people. */
export interface DescribedChange {
  /** The verb that says it (base form), or the statement the tool runs. */
  word: string;
  /** The words around it, as written. */
  phrase: string;
  kind: 'change' | 'statement';
  verbClass: Exclude<VerbClass, 'read'>;
}

/** Words that read as verbs in descriptions of reads too: they say nothing of a change. */
const DESCRIPTIVE = new Set([
  'generate',
  'return',
  'log',
  'new',
  'open',
  'call',
  'start',
  'stop',
  'match',
  'process',
  'invoke',
  'put',
  'run',
  'execute',
  'exec',
  'eval',
  'confirm',
  'accept',
  'correct',
  'tag',
  'flag',
  'claim',
  'release',
  'share',
  'export',
  'download',
]);
/** Verb-nouns that say a change only when they act on something ("Records a payment"). */
const AMBIGUOUS = new Set(['record', 'book', 'file', 'issue', 'order', 'register', 'schedule', 'draft']);
const DETERMINERS = new Set(
  'a an the this that these those its their his her your our one all any each every some new existing multiple given specified selected money funds it them'.split(
    ' ',
  ),
);
/** Words after which a verb is the tool's action: modals, `to`, and the tool itself as subject. */
const SUBJECT_OR_AUX = new Set(
  'to will can may shall must should would could also then and or it this which that tool function endpoint automatically immediately permanently directly instantly actually'.split(
    ' ',
  ),
);
const NEGATIONS = new Set(
  "not never no without cannot can't doesn't don't won't isn't nor neither nothing none".split(' '),
);
/** Someone other than the tool: "invoices you can approve" lists, it does not approve. */
const OTHER_SUBJECTS = new Set(['you', 'user', 'users', 'they', 'we', 'caller', 'customer', 'customers']);
const PREPOSITIONS = new Set(
  'of to for in on at by from with and or are is was were made that which as per'.split(' '),
);

/** The base of a verb form: `creates` → `create`, `applies` → `apply`, `approve` → `approve`. */
function verbBase(word: string): { base: string; third: boolean } | undefined {
  const known = (w: string) => {
    const cls = verbClass(w);
    return cls !== undefined && cls !== 'read' && !DESCRIPTIVE.has(w);
  };
  if (known(word)) return { base: word, third: false };
  const candidates = [
    word.endsWith('ies') ? `${word.slice(0, -3)}y` : undefined,
    word.endsWith('es') ? word.slice(0, -2) : undefined,
    word.endsWith('s') ? word.slice(0, -1) : undefined,
  ];
  for (const c of candidates) if (c !== undefined && known(c)) return { base: c, third: true };
  return undefined;
}

const RUN =
  /\b(execut(?:e|es|ing)|run(?:s|ning)?|perform(?:s|ing)?|evaluat(?:e|es|ing)|submit(?:s|ting)?)\b/i;
const STATEMENT =
  /\b(sql|graphql|soql|sosl|sparql|cypher|hql|statements?|quer(?:y|ies)|mutations?|scripts?|commands?|code)\b/i;
const FREE_FORM =
  /\b(raw|arbitrary|custom|any|your own)\s+(sql|quer(?:y|ies)|statements?|graphql|soql|code)\b/i;

function statementIn(sentence: string): DescribedChange | undefined {
  const free = FREE_FORM.exec(sentence);
  const run = RUN.exec(sentence);
  const stmt = run ? STATEMENT.exec(sentence.slice(run.index)) : undefined;
  const hit =
    free ??
    (run && stmt && stmt.index <= 60 && !/\bsearch\s+$/i.test(sentence.slice(0, run.index + stmt.index))
      ? stmt
      : undefined);
  if (!hit) return undefined;
  const before = sentence
    .slice(0, run?.index ?? hit.index)
    .toLowerCase()
    .split(/\s+/)
    .slice(-3);
  if (before.some((w) => NEGATIONS.has(w))) return undefined;
  return { word: hit[0].toLowerCase(), phrase: sentence.trim(), kind: 'statement', verbClass: 'destructive' };
}

/**
 * Whether a description says the tool changes something or runs a statement the caller supplies;
 * the first such sentence, quoted. Participles ("deleted invoices"), gerunds, negations ("does not
 * modify") and others' actions ("invoices you can approve") say nothing of the tool.
 */
export function describedChange(description: string | undefined): DescribedChange | undefined {
  if (!description) return undefined;
  for (const sentence of description.split(/(?<=[.!?;:])\s+|\n+/)) {
    const statement = statementIn(sentence);
    if (statement) return statement;
    // A tool named in the text (`void_invoice`, `deleteInvoice`) is not the tool's own action.
    const prose = sentence.replace(/\S*(?:_|[a-z][A-Z])\S*/g, ' ');
    const tokens = prose.match(/[A-Za-z][A-Za-z'-]*/g) ?? [];
    for (let i = 0; i < tokens.length; i++) {
      const word = (tokens[i] as string).toLowerCase();
      const found = verbBase(word);
      if (!found) continue;
      const prev = tokens[i - 1]?.toLowerCase();
      const next = tokens[i + 1]?.toLowerCase();
      const window = tokens.slice(Math.max(0, i - 6), i).map((t) => t.toLowerCase());
      if (window.some((w) => NEGATIONS.has(w))) continue;
      if (window.some((w) => OTHER_SUBJECTS.has(w))) continue;
      const atStart = i === 0;
      const acts = next !== undefined && DETERMINERS.has(next);
      const nounToo = VERB_NOUNS.has(found.base) || VERB_NOUNS.has(singular(word));
      const verbPlace = atStart || (prev !== undefined && SUBJECT_OR_AUX.has(prev));
      let says: boolean;
      if (AMBIGUOUS.has(found.base)) says = verbPlace && acts;
      else if (nounToo)
        says = (atStart && (next === undefined || !PREPOSITIONS.has(next))) || (verbPlace && acts);
      else says = found.third ? atStart || verbPlace || acts : verbPlace;
      if (!says) continue;
      const cls = verbClass(found.base);
      return {
        word: found.base,
        phrase: sentence.trim(),
        kind: 'change',
        verbClass: cls === undefined || cls === 'read' ? 'create' : cls,
      };
    }
  }
  return undefined;
}
