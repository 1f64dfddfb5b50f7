/**
 * Small talk answered without a model: greetings, thanks, farewells, "help" and "what can you do",
 * in English, Hinglish and Hindi — what munim does and what to ask, from the quick suggestions of
 * the tenant.
 */

/**
 * The end of a word in any script. JavaScript's `\b` knows only ASCII word characters, so it never
 * matches after a Devanagari letter or vowel sign; a letter, combining mark or digit next means the
 * word goes on ("thanksgiving", "धन्यवादों").
 */
const WORD_END = '(?![\\p{L}\\p{M}\\p{N}])';
const opening = (words: string) => new RegExp(`^(${words})${WORD_END}`, 'iu');

const THANKS = opening(
  'thanks?|thank (you|u)|thanku|ty|thx|tks|dhanyavaa?d|dhanyawad|shukriya|धन्यवाद|शुक्रिया',
);
const BYE = opening('bye+|goodbye|good bye|see (you|ya)|take care|alvida|tata|phir milenge|अलविदा|फिर मिलेंगे');

/** The answer to a small-talk message when no model is configured. */
export function smallTalkAnswer(
  message: string,
  persona: { name: string; product: string },
  suggestions: string[],
): string {
  const text = message.trim();
  const ideas =
    suggestions.length > 0
      ? `\n\nYou can ask, for example:\n${suggestions.map((s) => `- ${s}`).join('\n')}`
      : '';
  if (THANKS.test(text)) return `You're welcome! Anything else I can look up in ${persona.product}?${ideas}`;
  if (BYE.test(text)) return 'Goodbye! Ask me about your books any time.';
  return (
    `Namaste! I'm ${persona.name}, your AI CFO for ${persona.product}. I can show invoices, bills, payments, ` +
    'customers and vendors, overdue amounts and reports such as profit and loss, the balance sheet, cash flow ' +
    'and GST, and record changes once you confirm them. No language model is configured here, so I answer the ' +
    `questions I know straight from your books.${ideas}`
  );
}
