import type { MatchedIntent, PlannedCall } from '@munim/contracts';
import { normalize } from './classifier.ts';

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

interface IndexedIntent {
  intent: Intent;
  phrases: string[];
  name: string;
}

export interface IntentMatch {
  intent: MatchedIntent;
  flow: PlannedCall[];
}

/** Intent matching of seed 003 §3.2: exact 0.95, substring 0.70–0.95 by length similarity, name 0.60. */
export class IntentMatcher {
  private indexed: IndexedIntent[] = [];

  get size(): number {
    return this.indexed.length;
  }

  replace(intents: Intent[]): void {
    this.indexed = intents.map((intent) => ({
      intent,
      phrases: intent.trainingPhrases.map(normalize).filter(Boolean),
      name: normalize(intent.name.replace(/_/g, ' ')),
    }));
  }

  match(query: string): IntentMatch | null {
    const text = normalize(query);
    if (!text) return null;
    let best: { entry: IndexedIntent; confidence: number } | null = null;
    for (const entry of this.indexed) {
      const confidence = this.score(text, entry);
      if (confidence > 0 && (!best || confidence > best.confidence)) best = { entry, confidence };
    }
    if (!best) return null;
    const { intent } = best.entry;
    return {
      intent: {
        id: intent.id,
        name: intent.name,
        moduleId: intent.moduleId,
        description: intent.description,
        confidence: Math.round(best.confidence * 1000) / 1000,
      },
      flow: intent.resolutionFlow,
    };
  }

  private score(text: string, entry: IndexedIntent): number {
    let best = 0;
    for (const phrase of entry.phrases) {
      if (phrase === text) return 0.95;
      const [shorter, longer] = phrase.length <= text.length ? [phrase, text] : [text, phrase];
      if (containsWords(longer, shorter)) {
        best = Math.max(best, 0.7 + 0.25 * (shorter.length / longer.length));
      }
    }
    if (best === 0 && entry.name && containsWords(text, entry.name)) best = 0.6;
    return best;
  }
}

function containsWords(haystack: string, needle: string): boolean {
  return ` ${haystack} `.includes(` ${needle} `);
}
