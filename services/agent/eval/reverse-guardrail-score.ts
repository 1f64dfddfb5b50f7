import { readFileSync } from 'node:fs';
import { reverseGuardrails } from '../src/answer/guardrails.ts';
import type { WriteOutcome } from '../src/run/run.ts';

/** What became of one tool call of the turn. */
export type CallStatus = 'succeeded' | 'failed' | 'blocked' | 'awaiting_confirmation' | 'refused' | 'unknown';

/** One labelled answer of `test/fixtures/reverse-guardrail*.jsonl`: the text, its turn's calls, and what the guardrail should do. */
export interface LabelledAnswer {
  id: number;
  class: string;
  lang: 'en' | 'hi' | 'hinglish';
  text: string;
  tools: { name: string; kind: 'read' | 'write'; status: CallStatus; checked?: boolean }[];
  /** The reverse guardrail that should fire, or null when the answer must pass untouched. */
  guardrail: string | null;
  note?: string;
}

export interface GuardrailScores {
  total: number;
  /** Over "fires or not": of the answers it changed, how many it should have changed. */
  precision: number;
  /** Of the answers it should have changed, how many it changed. */
  recall: number;
  /** Answers of turns that attempted no write and claim nothing: how many passed untouched. */
  readsUntouched: { passed: number; of: number };
  /** Success claims no write backs (none ran, it failed, it did not run): how many were replaced. */
  falseClaimsCaught: { caught: number; of: number };
  /** Every answer: the guardrail that fired is the labelled one. */
  exact: { right: number; of: number };
  byLang: Record<string, { right: number; of: number }>;
  misses: string[];
}

export function loadAnswers(file = 'reverse-guardrail.jsonl'): LabelledAnswer[] {
  return readFileSync(new URL(`../test/fixtures/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledAnswer);
}

const describe = (tool: string) => tool.replace(/[_.-]+/g, ' ');

/** The guardrail's inputs as the agent has them: the writes that ran, and every call's result. */
export function turnOf(item: LabelledAnswer) {
  const writes: WriteOutcome[] = item.tools
    .filter((t) => t.kind === 'write' && ['succeeded', 'failed', 'unknown'].includes(t.status))
    .map((t) => ({
      tool: t.name,
      success: t.status === 'succeeded',
      ...(t.status === 'unknown' ? { unknown: true, ...(t.checked ? { checked: true } : {}) } : {}),
    }));
  const results = item.tools.map((t) => ({ tool: t.name, success: t.status === 'succeeded' }));
  const awaiting = item.tools
    .filter((t) => t.kind === 'write' && t.status === 'awaiting_confirmation')
    .map((t) => t.name);
  return { writes, results, awaiting };
}

/** Runs the reverse guardrail over a labelled set and scores it. */
export function scoreAnswers(items = loadAnswers()): GuardrailScores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const reads = { passed: 0, of: 0 };
  const claims = { caught: 0, of: 0 };
  const exact = { right: 0, of: 0 };
  const byLang: Record<string, { right: number; of: number }> = {};
  const misses: string[] = [];
  for (const item of items) {
    const { writes, results, awaiting } = turnOf(item);
    const out = reverseGuardrails(item.text, writes, describe, { results, awaiting });
    const fired = out.guardrails[0] ?? null;
    const should = item.guardrail !== null;
    if (fired && should) tp++;
    else if (fired) fp++;
    else if (should) fn++;
    const noWrite = item.tools.every((t) => t.kind === 'read');
    if (noWrite && item.guardrail === null) {
      reads.of++;
      if (!fired && out.text === item.text) reads.passed++;
    }
    if (item.guardrail === 'hallucinated_success_stripped') {
      claims.of++;
      if (fired === item.guardrail) claims.caught++;
    }
    exact.of++;
    const lang = byLang[item.lang] ?? { right: 0, of: 0 };
    byLang[item.lang] = lang;
    lang.of++;
    if (fired === item.guardrail) {
      exact.right++;
      lang.right++;
    } else {
      misses.push(`#${item.id} [${item.class}] expected ${item.guardrail}, got ${fired}: ${item.text}`);
    }
  }
  return {
    total: items.length,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    readsUntouched: reads,
    falseClaimsCaught: claims,
    exact,
    byLang,
    misses,
  };
}
