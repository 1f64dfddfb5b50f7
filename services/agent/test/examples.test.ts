import { describe, expect, it } from 'vitest';
import { examplesFor, withoutModel } from '../src/answer/examples.ts';

describe('what munim offers when a question needs a model it does not have', () => {
  it('offers the questions closest to what was asked', () => {
    expect(examplesFor('why did my GST liability jump?')[0]).toMatch(/GST/);
    expect(examplesFor('forecast my cash for next quarter')).toContain(
      'Will I run short of cash in the next 13 weeks?',
    );
    expect(examplesFor('which customers pay late and should I chase them')).toEqual(
      expect.arrayContaining(['How long do customers take to pay?']),
    );
    expect(examplesFor('explain my profit margin trend')).toEqual(
      expect.arrayContaining(['What is my gross margin this year?']),
    );
  });

  it('offers Hinglish examples to a Hinglish or Hindi question, English ones otherwise', () => {
    expect(examplesFor('GST return kab bharna hai aur kitna')[0]).toBe('is mahine GST kitna bharna hai?');
    expect(examplesFor('मेरा मुनाफा क्यों कम हुआ')[0]).toBe('is saal kitna munafa hua?');
    for (const e of examplesFor('why did my sales drop')) expect(e).toMatch(/^[A-Z]/);
  });

  it('always offers three, for any question, and says what is missing', () => {
    for (const q of ['', 'tell me a joke', 'xyzzy', 'क्या हाल है']) expect(examplesFor(q)).toHaveLength(3);
    const reply = withoutModel('why did my profit fall');
    expect(reply).toMatch(/^No language model is configured/);
    expect(reply).toMatch(/for example: “/);
    expect(reply).not.toMatch(/₹\s?\d/);
  });
});
