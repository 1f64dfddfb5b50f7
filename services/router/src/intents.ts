import type { MatchedIntent, PlannedCall } from '@munim/contracts';
import { canonicalWords, isStopword, knownWords, Speller } from './canonical.ts';
import { normalize } from './text.ts';

/** An intent as the router uses it (from the `intents` table). */
export interface Intent {
  id: string;
  name: string;
  moduleId: string | null;
  description: string | null;
  trainingPhrases: string[];
  resolutionFlow: PlannedCall[];
}

/** Where intents come from; the DB in production, a list in tests. */
export interface IntentSource {
  load(): Promise<Intent[]>;
}

export interface IntentMatch {
  intent: MatchedIntent;
  flow: PlannedCall[];
  /** How the best phrase matched. */
  kind: 'exact' | 'substring' | 'name';
  /**
   * The query holds words the intent does not explain, or another intent claims it as well: the
   * fixed pipeline would answer another question, so it never runs, whatever the threshold.
   */
  capped: boolean;
}

/** Highest confidence a match may have while the query holds words the intent does not explain. */
export const UNEXPLAINED_CAP = 0.84;

interface Phrase {
  intent: number;
  words: Set<string>;
  chars: number;
}

const keyOf = (words: Iterable<string>) => [...new Set(words)].sort().join(' ');
const charsOf = (words: Iterable<string>) => [...words].join(' ').length;

/**
 * Intent matching over canonical word sets: exact 0.95, substring 0.70–0.95 by
 * length similarity, name 0.60. A query with a word the phrase does not explain (a customer name,
 * a date, a second entity) scores at most {@link UNEXPLAINED_CAP}, below the fast-path threshold,
 * because the fixed pipeline would ignore it and answer a different question.
 */
export class IntentMatcher {
  private intents: Intent[] = [];
  private phrases: Phrase[] = [];
  private exact = new Map<string, number[]>();
  private byWord = new Map<string, number[]>();
  private names: { intent: number; words: string[] }[] = [];
  private speller = new Speller([]);

  get size(): number {
    return this.intents.length;
  }

  /** Every canonical word the catalog knows. */
  vocabulary(): Set<string> {
    return new Set(this.byWord.keys());
  }

  replace(intents: Intent[]): void {
    this.intents = intents;
    this.phrases = [];
    this.exact = new Map();
    this.byWord = new Map();
    intents.forEach((intent, index) => {
      for (const text of intent.trainingPhrases) {
        const words = new Set(canonicalWords(text));
        if (words.size === 0) continue;
        const id = this.phrases.length;
        this.phrases.push({ intent: index, words, chars: charsOf(words) });
        const key = keyOf(words);
        this.exact.set(key, [...(this.exact.get(key) ?? []), id]);
        for (const w of words) this.byWord.set(w, [...(this.byWord.get(w) ?? []), id]);
      }
    });
    this.names = intents.map((intent, index) => ({
      intent: index,
      words: canonicalWords(intent.name.replace(/_/g, ' ')),
    }));
    const raw = knownWords();
    for (const intent of intents)
      for (const text of [...intent.trainingPhrases, intent.name.replace(/_/g, ' ')])
        for (const w of normalize(text).split(' ')) raw.add(w);
    this.speller = new Speller(raw);
  }

  /** The canonical words of a query, spelled against the catalog's vocabulary. */
  words(query: string): string[] {
    // Spelling is fixed on the words as typed, so a typo inside "balance shet" still forms "balance sheet".
    const spelled = normalize(query)
      .split(' ')
      .map((w) => this.speller.correct(w))
      .join(' ');
    return [...new Set([...canonicalWords(spelled), ...names(query)])];
  }

  match(query: string, opts: { ignore?: readonly string[] } = {}): IntentMatch | null {
    const ignore = new Set(opts.ignore ?? []);
    const words = this.words(query).filter((w) => !ignore.has(w));
    if (words.length === 0) return null;
    const candidates = this.score(words);
    if (candidates.length === 0) return this.nameMatch(words);
    candidates.sort((a, b) => b.confidence - a.confidence);
    const best = candidates[0] as (typeof candidates)[number];
    const rival = candidates.find((c) => c.intent !== best.intent);
    // Two intents claim the query equally: the fixed pipeline of either may be the wrong one.
    const tie = rival !== undefined && rival.confidence === best.confidence;
    const confidence = tie ? Math.min(best.confidence, UNEXPLAINED_CAP) : best.confidence;
    return this.result(best.intent, confidence, best.kind, tie || best.unexplained);
  }

  private score(words: string[]) {
    const querySet = new Set(words);
    const queryChars = charsOf(words);
    const out: { intent: number; confidence: number; kind: IntentMatch['kind']; unexplained: boolean }[] = [];
    const exact = this.exact.get(keyOf(words));
    if (exact) {
      for (const id of exact)
        out.push({
          intent: (this.phrases[id] as Phrase).intent,
          confidence: 0.95,
          kind: 'exact',
          unexplained: false,
        });
      return dedupe(out);
    }
    const overlap = new Map<number, number>();
    for (const w of querySet)
      for (const id of this.byWord.get(w) ?? []) overlap.set(id, (overlap.get(id) ?? 0) + 1);
    for (const [id, shared] of overlap) {
      const phrase = this.phrases[id] as Phrase;
      if (shared === phrase.words.size) {
        // The phrase is inside the query: the rest of the query is unexplained.
        const c = 0.7 + 0.25 * (phrase.chars / queryChars);
        out.push({
          intent: phrase.intent,
          confidence: Math.min(c, UNEXPLAINED_CAP),
          kind: 'substring',
          unexplained: true,
        });
      } else if (shared === querySet.size) {
        // The query is inside the phrase: everything the user said is explained, less was said.
        out.push({
          intent: phrase.intent,
          confidence: 0.7 + 0.25 * (queryChars / phrase.chars),
          kind: 'substring',
          unexplained: false,
        });
      }
    }
    return dedupe(out);
  }

  private nameMatch(words: string[]): IntentMatch | null {
    const set = new Set(words);
    const hit = this.names.find((n) => n.words.length > 0 && n.words.every((w) => set.has(w)));
    // The name is in the query; the rest of it is unexplained.
    return hit ? this.result(hit.intent, 0.6, 'name', true) : null;
  }

  private result(index: number, confidence: number, kind: IntentMatch['kind'], capped: boolean): IntentMatch {
    const intent = this.intents[index] as Intent;
    return {
      intent: {
        id: intent.id,
        name: intent.name,
        moduleId: intent.moduleId,
        description: intent.description,
        confidence: Math.round(confidence * 1000) / 1000,
      },
      flow: intent.resolutionFlow,
      kind,
      capped,
    };
  }
}

/**
 * Names that read as stopwords ("bills from Bata", "invoices of Do Pvt"): a capitalised word after a
 * preposition names a party, and the query asks about that party.
 */
function names(query: string): string[] {
  return [...query.matchAll(/(?:^|\s)(?:of|from|for|by|to|with)\s+(\p{Lu}[\p{L}\p{M}]*)/gu)]
    .map((m) => (m[1] as string).toLowerCase())
    .filter((w) => isStopword(w))
    .map((w) => `name:${w}`);
}

/** The best match of each intent: one of its phrases that explains the whole query first, then the most confident. */
function dedupe<T extends { intent: number; confidence: number; unexplained: boolean }>(items: T[]): T[] {
  const best = new Map<number, T>();
  for (const item of items) {
    const prev = best.get(item.intent);
    const better =
      !prev ||
      (prev.unexplained && !item.unexplained) ||
      (prev.unexplained === item.unexplained && item.confidence > prev.confidence);
    if (better) best.set(item.intent, item);
  }
  return [...best.values()];
}
