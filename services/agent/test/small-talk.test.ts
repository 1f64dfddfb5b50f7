import { describe, expect, it } from 'vitest';
import { smallTalkAnswer } from '../src/turn/small-talk.ts';

const persona = { name: 'Munim', product: 'Books' };
const answer = (message: string) => smallTalkAnswer(message, persona, []);
const kindOf = (message: string): 'thanks' | 'bye' | 'greeting' => {
  const text = answer(message);
  if (text.startsWith("You're welcome!")) return 'thanks';
  if (text.startsWith('Goodbye!')) return 'bye';
  expect(text).toMatch(/^Namaste!/);
  return 'greeting';
};

/** Each word, alone, with the punctuation people end it with, and with the words that often follow it. */
function phrasings(words: readonly string[], after: readonly string[]): string[] {
  const endings = ['', '!', '.', '!!', ' 🙏', '।', ' ।'];
  return words.flatMap((word) => [
    ...endings.map((end) => `${word}${end}`),
    ...after.map((rest) => `${word} ${rest}`),
    `  ${word.toUpperCase()}  `,
  ]);
}

const THANKS = {
  english: ['thanks', 'thank you', 'thank u', 'thanku', 'ty', 'thx', 'tks', 'thank'],
  hinglish: ['dhanyavad', 'dhanyavaad', 'dhanyawad', 'shukriya'],
  devanagari: ['धन्यवाद', 'शुक्रिया'],
};
const BYE = {
  english: ['bye', 'byee', 'goodbye', 'good bye', 'see you', 'see ya', 'take care'],
  hinglish: ['alvida', 'tata', 'phir milenge'],
  devanagari: ['अलविदा', 'फिर मिलेंगे'],
};
const AFTER = ['a lot', 'so much!', 'ji', 'bhai', 'जी', 'दोस्त!', 'for the help', 'aapka', '— munim'];

describe('small talk is told apart in every script, whatever follows the word', () => {
  for (const [script, words] of Object.entries(THANKS)) {
    it.each(phrasings(words, AFTER))(`thanks in ${script}: "%s"`, (message) => {
      expect(kindOf(message)).toBe('thanks');
    });
  }
  for (const [script, words] of Object.entries(BYE)) {
    it.each(phrasings(words, AFTER))(`goodbye in ${script}: "%s"`, (message) => {
      expect(kindOf(message)).toBe('bye');
    });
  }
  it.each(['hello', 'hi!', 'namaste', 'नमस्ते', 'what can you do?', 'help', 'kya kar sakte ho'])(
    'a greeting or a question about munim: "%s"',
    (message) => {
      expect(kindOf(message)).toBe('greeting');
    },
  );
});

describe('a longer sentence that only starts like small talk is not taken for it', () => {
  it.each([
    'thanksgiving sales by customer',
    'tyre purchases this month',
    'thxreport for march',
    'byelaws filing status',
    'goodbyes ledger entries',
    'tatami vendor bills',
    'alvidaa traders ka balance',
    'धन्यवादों की सूची दिखाओ',
    'शुक्रियाना खाते का बैलेंस',
    'अलविदाई समारोह के बिल',
    'फिर मिलेंगेगे वाले बिल',
    'show overdue invoices',
    'पिछले महीने का मुनाफा',
    'is mahine ka GST kitna hai',
  ])('"%s"', (message) => {
    expect(kindOf(message)).toBe('greeting');
  });
});
