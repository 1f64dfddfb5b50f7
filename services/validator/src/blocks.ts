import { jsonrepair } from 'jsonrepair';
import { z } from 'zod';
import type { CorrectionTokens, JsonCorrector } from './correct.ts';

const Scalar = z.union([z.string(), z.number(), z.boolean()]);

/** The `params` block of an answer: what a create/update has applied and what it still needs. */
export const ParamsBlockSchema = z.object({
  operation: z.string().min(1),
  applied: z.array(z.object({ label: z.string().min(1), value: Scalar })),
  pending: z.array(z.object({ label: z.string().min(1), hint: z.string().optional() })),
});

/** The `clarification` block of an answer: a multiple-choice question for the user. */
export const ClarificationBlockSchema = z.object({
  question: z.string().min(1),
  type: z.enum(['radio', 'dropdown', 'checkbox']).default('radio'),
  options: z.array(z.object({ label: z.string().min(1), value: Scalar })).min(2),
});

/** `card` block: a display card; no fields are fixed beyond it being an object with a title or type. */
export const CardBlockSchema = z
  .looseObject({ type: z.string().optional(), title: z.string().optional() })
  .refine((card) => card.type !== undefined || card.title !== undefined, {
    message: 'a card needs a type or a title',
  });

/** Block kinds and their schemas; a new kind is one entry. */
export const BLOCK_SCHEMAS = {
  params: ParamsBlockSchema,
  clarification: ClarificationBlockSchema,
  card: CardBlockSchema,
} as const;
export type BlockKind = keyof typeof BLOCK_SCHEMAS;

export type BlockOutcome = 'valid' | 'repaired' | 'llm_corrected' | 'removed';

/** Guardrail names recorded in `guardrails_triggered` when a block was repaired, corrected or removed. */
export const BLOCK_GUARDRAILS = {
  repaired: 'json_repaired',
  llmCorrected: 'json_llm_corrected',
  removed: 'json_block_removed',
} as const;

const BLOCK = /```(params|clarification|card)[ \t]*\r?\n([\s\S]*?)(?:```|$)/g;

type Checked = { ok: true; value: unknown } | { ok: false; errors: string[] };

function check(kind: BlockKind, value: unknown): Checked {
  const parsed = BLOCK_SCHEMAS[kind].safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues.map((i) => `${i.path.join('.') || '(block)'}: ${i.message}`),
  };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

async function fixBlock(
  kind: BlockKind,
  body: string,
  corrector: JsonCorrector | undefined,
  tokens: CorrectionTokens | undefined,
): Promise<{ outcome: BlockOutcome; value?: unknown }> {
  const strict = parseJson(body);
  const errors: string[] = [];
  let candidate = body;
  if (strict.ok) {
    const checked = check(kind, strict.value);
    if (checked.ok) return { outcome: 'valid' };
    errors.push(...checked.errors);
  } else {
    errors.push(`JSON syntax: ${strict.error}`);
    try {
      candidate = jsonrepair(body);
      const checked = check(kind, JSON.parse(candidate));
      if (checked.ok) return { outcome: 'repaired', value: checked.value };
      errors.push(...checked.errors);
    } catch {
      // Not repairable as syntax; the LLM sees the original text.
    }
  }
  if (corrector) {
    const fixed = await corrector.correct({
      text: candidate,
      errors,
      schema: z.toJSONSchema(BLOCK_SCHEMAS[kind], { io: 'input', unrepresentable: 'any' }),
      what: `\`${kind}\` block`,
      tokens,
    });
    if (fixed !== undefined) {
      const checked = check(kind, fixed);
      if (checked.ok) return { outcome: 'llm_corrected', value: checked.value };
    }
  }
  return { outcome: 'removed' };
}

/**
 * Validates every fenced `params`/`clarification`/`card` block of an answer against its schema:
 * a valid block stays as written; a broken one is repaired (jsonrepair), else corrected once by
 * the LLM when a corrector is given, else removed — never left broken, since a client renders it.
 */
export async function repairBlocks(
  text: string,
  opts: { corrector?: JsonCorrector | undefined; tokens?: CorrectionTokens | undefined } = {},
): Promise<{ text: string; guardrails: string[]; blocks: { kind: BlockKind; outcome: BlockOutcome }[] }> {
  const matches = [...text.matchAll(BLOCK)];
  if (matches.length === 0) return { text, guardrails: [], blocks: [] };
  const results = await Promise.all(
    matches.map((m) => fixBlock(m[1] as BlockKind, m[2] ?? '', opts.corrector, opts.tokens)),
  );
  let out = '';
  let last = 0;
  const guardrails = new Set<string>();
  const blocks: { kind: BlockKind; outcome: BlockOutcome }[] = [];
  matches.forEach((m, i) => {
    const kind = m[1] as BlockKind;
    const result = results[i] ?? { outcome: 'removed' as const };
    const start = m.index ?? 0;
    out += text.slice(last, start);
    last = start + m[0].length;
    blocks.push({ kind, outcome: result.outcome });
    if (result.outcome === 'valid') out += m[0];
    else if (result.outcome === 'removed') guardrails.add(BLOCK_GUARDRAILS.removed);
    else {
      guardrails.add(
        result.outcome === 'repaired' ? BLOCK_GUARDRAILS.repaired : BLOCK_GUARDRAILS.llmCorrected,
      );
      out += `\`\`\`${kind}\n${JSON.stringify(result.value)}\n\`\`\``;
    }
  });
  out += text.slice(last);
  // A removed block leaves no run of blank lines behind.
  if (guardrails.has(BLOCK_GUARDRAILS.removed)) out = out.replace(/\n{3,}/g, '\n\n').trimEnd();
  return { text: out, guardrails: [...guardrails], blocks };
}
