/**
 * Tool names in any style — `get_invoice`, `list-invoices`, `getInvoice`, `invoices.list`,
 * `books__get_invoice` — read as words: the verb, its object, and every other word that names a
 * change.
 */
import {
  BOOK_NOUNS,
  CONJUNCTIONS,
  CREATE_VERBS,
  DESTRUCTIVE_VERBS,
  EDIT_VERBS,
  READ_VERBS,
  RUNNER_VERBS,
  STATEMENT_WORDS,
  VERB_NOUNS,
} from './tool-words.ts';

/** Two-word verbs, written as one word once joined: "write off", "look up". */
const PHRASAL_VERBS: Readonly<Record<string, string>> = {
  'write off': 'writeoff',
  'look up': 'lookup',
  'sign off': 'approve',
};

/** What a verb does: `read`, or the kind of write it is. */
export type VerbClass = 'read' | 'destructive' | 'edit' | 'create';

/** The class of a known verb, or undefined for a word that is no verb we know. */
export function verbClass(verb: string): VerbClass | undefined {
  if (READ_VERBS.has(verb)) return 'read';
  if (DESTRUCTIVE_VERBS.has(verb)) return 'destructive';
  if (EDIT_VERBS.has(verb)) return 'edit';
  if (CREATE_VERBS.has(verb)) return 'create';
  return undefined;
}

const RANK: Record<VerbClass, number> = { read: 0, create: 1, edit: 2, destructive: 3 };

/** Where in a name a word names a change. */
export type ChangePlace =
  /** the name's own verb is not a read verb */
  | 'verb'
  /** a word that is only ever a verb, beside a read verb */
  | 'word'
  /** a verb after `and`, `or`, `then`, `plus` */
  | 'conjunction'
  /** a verb in the server prefix before `__` */
  | 'prefix';

/** A word of a name that names a change, and where it stands. */
export interface ChangeWord {
  word: string;
  place: ChangePlace;
  /** The conjunction it follows, for `conjunction`. */
  after?: string;
  verbClass: Exclude<VerbClass, 'read'>;
}

/** A tool name read as words. */
export interface ToolNameParts {
  /** The name as given. */
  name: string;
  /** The prefix before the last `__` (a server's name), if any. */
  prefix?: string;
  /** Every word of the name after the prefix, lower-case. */
  words: string[];
  /**
   * The verb of what the tool does (phrasal verbs joined: `writeoff`): the strongest change verb
   * anywhere in the name when it names one (`fetch_and_pay_bill` → `pay`), else its verb.
   */
  verb?: string;
  /** What the verb does; undefined when no verb was found. */
  verbClass?: VerbClass | undefined;
  /** The name's own verb (the leading word, or the last of a resource-first name), if it is one. */
  mainVerb?: string;
  /** The words that are neither verbs nor conjunctions of a second action, in order. */
  nouns: string[];
  /** The nouns singular and joined with `_`: `create-credit-notes` → `credit_note`. */
  object: string;
  /** Every word that names a change, in order of the name. */
  changes: ChangeWord[];
  /** The word that makes it run statements the caller writes (`sql`, `execute`, a `query` not read), if any. */
  statement?: string;
}

/** Splits a name into lower-case words at `_ - . / : space` and camelCase humps. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** A plural noun made singular, for the common English endings. */
export function singular(word: string): string {
  if (word.length <= 3 || word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(?:ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/** Joins phrasal verbs into one word ("write off" → "writeoff"). */
function joinPhrasal(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const joined = PHRASAL_VERBS[`${words[i]} ${words[i + 1]}`];
    if (joined) {
      out.push(joined);
      i += 1;
    } else out.push(words[i] as string);
  }
  return out;
}

/** A word that is only ever a verb of change (`delete`, `approve`): it names a change anywhere. */
const onlyVerb = (word: string) => {
  const cls = verbClass(word);
  return cls !== undefined && cls !== 'read' && !VERB_NOUNS.has(word);
};

/**
 * A change verb that is also a noun of the books, in its verb's form (`bill`, `post`): the plural
 * (`bills`, `books`) is the noun.
 */
const verbNoun = (word: string) => VERB_NOUNS.has(word);

/** The change class of a change word (a verb-noun's by its singular). */
function changeClass(word: string): Exclude<VerbClass, 'read'> {
  const cls = verbClass(word) ?? verbClass(singular(word));
  return cls === undefined || cls === 'read' ? 'create' : cls;
}

/** Nouns and adjectives by their shape: participles, gerunds, abstract nouns, plurals. */
const NOUN_SHAPE = /(?:ed|ing|ment|tion|sion|ness|ity|ance|ence|able|ible|ary|ory|ics|ship|ure|ist|al)$/;
const nounLike = (word: string) =>
  BOOK_NOUNS.has(word) ||
  BOOK_NOUNS.has(singular(word)) ||
  /^\d+$/.test(word) ||
  (word.length > 3 && NOUN_SHAPE.test(word)) ||
  (word.length > 3 && singular(word) !== word && verbClass(singular(word)) === undefined);

/** How a word right after a conjunction reads: a second action unless it is a read verb or a noun. */
function afterConjunction(word: string): 'read' | 'noun' | 'change' {
  if (READ_VERBS.has(word)) return 'read';
  if (onlyVerb(word) || verbNoun(word)) return 'change';
  return nounLike(word) ? 'noun' : 'change';
}

/**
 * Where the main clause's verb is: its first word, or its last in a resource-first name. A read
 * verb or a word that is only ever a verb marks its place before a verb-noun does (`bill_list`
 * lists bills; `file_invoice` files one).
 */
function mainVerbAt(clause: readonly string[]): 'start' | 'end' | undefined {
  const [first] = clause;
  const last = clause.length >= 2 ? clause.at(-1) : undefined;
  if (first === undefined) return undefined;
  const marks = (w: string) => READ_VERBS.has(w) || onlyVerb(w);
  if (marks(first)) return 'start';
  if (last !== undefined && marks(last)) return 'end';
  if (verbClass(first) !== undefined) return 'start';
  if (last !== undefined && verbClass(last) !== undefined) return 'end';
  return undefined;
}

/**
 * Reads a tool name: its server prefix (before the last `__`), its verb — the leading
 * word (`create_invoice`, `createInvoice`, `create-invoice`) or, for names that put the resource
 * first (`invoices.create`, `invoice_create`), the last one — and every other word that names a
 * change: any verb after a conjunction, anywhere a word that is only ever a verb, and any verb in
 * the prefix. A word that is also a noun of the books is a noun where it is the read verb's object.
 */
export function parseToolName(name: string): ToolNameParts {
  const cut = name.lastIndexOf('__');
  const hasPrefix = cut > 0 && cut + 2 < name.length;
  const words = nameWords(hasPrefix ? name.slice(cut + 2) : name);
  const prefixWords = hasPrefix ? joinPhrasal(nameWords(name.slice(0, cut))) : [];
  const tokens = joinPhrasal(words);
  const changes: ChangeWord[] = [];
  const nouns: string[] = [];

  for (const word of prefixWords)
    if (onlyVerb(word) || verbNoun(word))
      changes.push({ word, place: 'prefix', verbClass: changeClass(word) });

  // The clauses a conjunction starts: the first holds the name's own verb.
  const clauses: { words: string[]; after?: string }[] = [{ words: [] }];
  for (const word of tokens) {
    if (CONJUNCTIONS.has(word) && (clauses.at(-1)?.words.length ?? 0) > 0)
      clauses.push({ words: [], after: word });
    else clauses.at(-1)?.words.push(word);
  }

  const [main, ...more] = clauses as [{ words: string[] }, ...{ words: string[]; after?: string }[]];
  const at = mainVerbAt(main.words);
  const mainVerb = at === 'start' ? main.words[0] : at === 'end' ? main.words.at(-1) : undefined;
  const mainClass = mainVerb === undefined ? undefined : verbClass(mainVerb);
  const object = at === 'start' ? main.words.slice(1) : at === 'end' ? main.words.slice(0, -1) : main.words;
  if (mainVerb !== undefined && mainClass !== undefined && mainClass !== 'read')
    changes.push({ word: mainVerb, place: 'verb', verbClass: mainClass });
  const scanObject = (list: readonly string[]) => {
    for (const word of list) {
      if (onlyVerb(word)) changes.push({ word, place: 'word', verbClass: changeClass(word) });
      else nouns.push(word);
    }
  };
  scanObject(object);
  for (const clause of more) {
    const [first, ...rest] = clause.words as [string, ...string[]];
    const reads = afterConjunction(first);
    if (reads === 'change')
      changes.push({
        word: first,
        place: 'conjunction',
        after: clause.after ?? 'and',
        verbClass: changeClass(first),
      });
    else if (reads === 'noun') nouns.push(clause.after ?? 'and', first);
    scanObject(rest);
  }

  const statement = statementWord(tokens, mainVerb, at);
  const strongest = changes.reduce<ChangeWord | undefined>(
    (best, c) => (best === undefined || RANK[c.verbClass] > RANK[best.verbClass] ? c : best),
    undefined,
  );
  const verb = strongest?.word ?? mainVerb;
  return {
    name,
    ...(hasPrefix ? { prefix: name.slice(0, cut) } : {}),
    words,
    ...(verb !== undefined ? { verb, verbClass: strongest?.verbClass ?? mainClass } : {}),
    ...(mainVerb !== undefined ? { mainVerb } : {}),
    nouns,
    object: nouns.map(singular).join('_'),
    changes,
    ...(statement ? { statement } : {}),
  };
}

/**
 * The word that makes a name run statements the caller writes: a query language anywhere, a
 * leading `execute`/`run`/`eval`, or `query` beside a verb that is not a read (`write_query`) or
 * standing as the verb of a resource-first name (`raw_query`).
 */
function statementWord(
  tokens: readonly string[],
  mainVerb: string | undefined,
  at: 'start' | 'end' | undefined,
): string | undefined {
  const language = tokens.find((w) => STATEMENT_WORDS.has(w) && w !== 'query' && w !== 'queries');
  if (language) return language;
  if (at === 'start' && mainVerb !== undefined && RUNNER_VERBS.has(mainVerb)) return mainVerb;
  const query = tokens.find((w, i) => (w === 'query' || w === 'queries') && !(i === 0 && at === 'start'));
  if (query === undefined) return undefined;
  if (at === 'end' && (mainVerb === 'query' || mainVerb === 'queries')) return query;
  return mainVerb !== undefined && READ_VERBS.has(mainVerb) ? undefined : query;
}

/** A tool name in snake_case words without its prefix (`createCreditNote` → `create_credit_note`). */
export function snakeToolName(name: string): string {
  return parseToolName(name).words.join('_');
}
