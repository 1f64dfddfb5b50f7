/**
 * Tool names in any style — `get_invoice`, `list-invoices`, `getInvoice`, `invoices.list`,
 * `books__get_invoice` — read as words, a verb and its nouns (DESIGN §3.5).
 */

/** Verbs that only read. A tool is a read by its name only when its verb is one of these. */
export const READ_VERBS: ReadonlySet<string> = new Set([
  'get',
  'list',
  'search',
  'find',
  'query',
  'fetch',
  'read',
  'show',
  'view',
  'describe',
  'count',
  'lookup',
  'retrieve',
  'browse',
  'inspect',
  'preview',
  'download',
]);

/** Verbs whose write cannot simply be taken back: typed confirmation (tier 3). */
export const DESTRUCTIVE_VERBS: ReadonlySet<string> = new Set([
  'delete',
  'void',
  'remove',
  'cancel',
  'revert',
  'reverse',
  'writeoff',
  'close',
  'archive',
  'purge',
  'erase',
  'destroy',
  'drop',
  'terminate',
  'deactivate',
  'disable',
  'reject',
  'unpost',
  'unapply',
  'unreconcile',
  'reset',
  'wipe',
  'discard',
  'merge',
  'lock',
  // Seed 000 §7.1: approving a bill posts it; filing a return cannot be recalled.
  'approve',
  'file',
]);

/** Verbs that change an existing record: a summary of what changes (tier 2). */
export const EDIT_VERBS: ReadonlySet<string> = new Set([
  'update',
  'edit',
  'modify',
  'change',
  'amend',
  'patch',
  'set',
  'rename',
  'replace',
  'upsert',
  'move',
  'assign',
  'reassign',
  'reschedule',
  'adjust',
  'correct',
  // Seed 000 §7.1: sending an invoice goes to the customer.
  'send',
  'resend',
  'email',
]);

/** Verbs that make a new record from what the call gives (not `import`, `copy`, … from elsewhere). */
export const MAKING_VERBS: readonly string[] = [
  'create',
  'add',
  'new',
  'insert',
  'record',
  'post',
  'make',
  'raise',
  'issue',
  'enter',
  'book',
  'register',
  'log',
  'submit',
  'save',
];

/** Other verbs known to write (tier 1); any verb not listed anywhere is a write too. */
export const CREATE_VERBS: ReadonlySet<string> = new Set([
  ...MAKING_VERBS,
  'receive',
  'pay',
  'import',
  'reconcile',
  'apply',
  'allocate',
  'transfer',
  'refund',
  'deposit',
  'withdraw',
  'generate',
  'duplicate',
  'copy',
  'clone',
  'convert',
  'restore',
  'unarchive',
  'activate',
  'enable',
  'upload',
  'attach',
]);

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

/** A tool name read as words. */
export interface ToolNameParts {
  /** The name as given. */
  name: string;
  /** The prefix before the last `__` (a server's name), if any. */
  prefix?: string;
  /** Every word of the name after the prefix, lower-case. */
  words: string[];
  /** The verb (phrasal verbs joined: `writeoff`), if a word of the name is a known verb where a verb goes. */
  verb?: string;
  /** What the verb does; undefined when no verb was found. */
  verbClass?: VerbClass | undefined;
  /** The words that are not the verb, in order. */
  nouns: string[];
  /** The nouns singular and joined with `_`: `create-credit-notes` → `credit_note`. */
  object: string;
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

function verbAt(words: string[], at: 'start' | 'end'): { verb: string; length: number } | undefined {
  const pair = at === 'start' ? words.slice(0, 2) : words.slice(-2);
  const phrasal = pair.length === 2 ? PHRASAL_VERBS[pair.join(' ')] : undefined;
  if (phrasal) return { verb: phrasal, length: 2 };
  const word = at === 'start' ? words[0] : words.at(-1);
  if (word !== undefined && verbClass(word) !== undefined) return { verb: word, length: 1 };
  return undefined;
}

/**
 * Reads a tool name: its server prefix (before the last `__`), its words, and its verb — the
 * leading word (`create_invoice`, `createInvoice`, `create-invoice`) or, for names that put the
 * resource first (`invoices.create`, `invoice_create`), the last one.
 */
export function parseToolName(name: string): ToolNameParts {
  const cut = name.lastIndexOf('__');
  const hasPrefix = cut > 0 && cut + 2 < name.length;
  const words = nameWords(hasPrefix ? name.slice(cut + 2) : name);
  const lead = verbAt(words, 'start');
  const trail = lead || words.length < 2 ? undefined : verbAt(words, 'end');
  const found = lead ?? trail;
  const nouns = !found
    ? words
    : lead
      ? words.slice(found.length)
      : words.slice(0, words.length - found.length);
  return {
    name,
    ...(hasPrefix ? { prefix: name.slice(0, cut) } : {}),
    words,
    ...(found ? { verb: found.verb, verbClass: verbClass(found.verb) } : {}),
    nouns,
    object: nouns.map(singular).join('_'),
  };
}

/** A tool name in snake_case words without its prefix (`createCreditNote` → `create_credit_note`). */
export function snakeToolName(name: string): string {
  return parseToolName(name).words.join('_');
}
