import { readFileSync } from 'node:fs';
import { asksForChange } from '../src/confirmation/requested.ts';

/** One labelled pair of `test/fixtures/requested-writes*.jsonl`: what the user said, the write proposed, and whether they asked for it. */
export interface LabelledWrite {
  id: number;
  lang: 'en' | 'hi' | 'hinglish';
  message: string;
  tool: string;
  requested: boolean;
}

/** Scores of the `unrequested_write` flag: the positive class is "flagged" (the user did not ask). */
export interface RequestedScores {
  total: number;
  /** Of the writes it flagged, how many the user had not asked for. */
  precision: number;
  /** Of the writes the user had not asked for, how many it flagged. */
  recall: number;
  byLang: Record<string, { right: number; of: number }>;
  misses: string[];
}

/** The labelled pairs of one file under `test/fixtures/`. */
export function loadWrites(file = 'requested-writes.jsonl'): LabelledWrite[] {
  return readFileSync(new URL(`../test/fixtures/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledWrite);
}

/** Runs `asksForChange` over labelled pairs and scores the flag it raises. */
export function scoreWrites(items: readonly LabelledWrite[]): RequestedScores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const byLang: Record<string, { right: number; of: number }> = {};
  const misses: string[] = [];
  for (const item of items) {
    const flagged = !asksForChange(item.message, item.tool);
    const should = !item.requested;
    if (flagged && should) tp++;
    else if (flagged) fp++;
    else if (should) fn++;
    const lang = byLang[item.lang] ?? { right: 0, of: 0 };
    byLang[item.lang] = lang;
    lang.of++;
    if (flagged === should) lang.right++;
    else
      misses.push(`#${item.id} ${should ? 'missed' : 'wrongly flagged'}: "${item.message}" → ${item.tool}`);
  }
  return {
    total: items.length,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    byLang,
    misses,
  };
}
