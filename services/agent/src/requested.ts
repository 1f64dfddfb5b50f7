import { CREATE_VERBS, DESTRUCTIVE_VERBS, EDIT_VERBS, parseToolName } from '@munim/contracts';

/**
 * Words of a user's message that order a change, beyond the verb tables' own verbs: inflections,
 * synonyms, Hinglish and Hindi. Destructive ones may ask for a destructive write; the others for
 * creating or changing records.
 */
const DESTRUCTIVE_WORDS = [
  'deleting',
  'deleted',
  'cancelled',
  'canceled',
  'write off',
  'writeoff',
  'erase',
  'hata',
  'hatao',
  'hatado',
  'mita',
  'mitao',
  'nikal',
  'nikalo',
  'radd',
  'हटा',
  'हटाओ',
  'मिटा',
  'मिटाओ',
  'रद्द',
  'डिलीट',
  'कैंसल',
];
const CHANGE_WORDS = [
  'kar do',
  'kardo',
  'karo',
  'kijiye',
  'karna',
  'bana',
  'banao',
  'banado',
  'bhej',
  'bhejo',
  'badal',
  'badlo',
  'daal',
  'daalo',
  'jod',
  'jodo',
  'bhugtan',
  'chukao',
  'कर दो',
  'करो',
  'कीजिए',
  'बना',
  'बनाओ',
  'भेज',
  'भेजो',
  'बदल',
  'बदलो',
  'जोड़',
  'भुगतान',
  'चुकाओ',
];

function hasWord(text: string, word: string): boolean {
  // Letters of any script count as word characters: "add" is not found in "address".
  return new RegExp(`(^|[^\\p{L}\\p{M}])${word.replace(/ /g, '\\s+')}([^\\p{L}\\p{M}]|$)`, 'iu').test(text);
}

const any = (text: string, words: Iterable<string>) => [...words].some((w) => hasWord(text, w));
const inflected = (verbs: ReadonlySet<string>) =>
  [...verbs].flatMap((v) => [v, `${v}s`, `${v.replace(/e$/, '')}ing`, v.endsWith('e') ? `${v}d` : `${v}ed`]);

const DESTRUCTIVE = [...inflected(DESTRUCTIVE_VERBS), ...DESTRUCTIVE_WORDS];
const CHANGING = [
  ...inflected(EDIT_VERBS),
  ...inflected(CREATE_VERBS),
  'paid',
  'sent',
  'made',
  ...CHANGE_WORDS,
];

/**
 * Whether the user's message asks for the write of `tool`: a destructive write needs a destructive
 * word ("delete", "void", "hata do", "रद्द"); any other write a word that creates or changes
 * ("record", "pay", "update", "kar do", "भेजो"). A question that only reads asks for none, so a
 * write proposed on its turn came from somewhere else: a tool's result, a file, the model.
 */
export function asksForChange(message: string, tool: string): boolean {
  const { verbClass } = parseToolName(tool);
  // A tool's own name typed by the user ("createInvoice") reads as its words.
  const text = message.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2');
  if (verbClass === 'destructive') return any(text, DESTRUCTIVE);
  return any(text, CHANGING) || any(text, DESTRUCTIVE);
}
