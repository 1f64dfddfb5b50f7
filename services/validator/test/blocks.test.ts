import { describe, expect, it } from 'vitest';
import { repairBlocks } from '../src/blocks.ts';
import type { JsonCorrector } from '../src/correct.ts';

const params =
  '{"operation":"Create Invoice","applied":[{"label":"Customer","value":"Devesh"}],"pending":[{"label":"Item Description","hint":"e.g., Web development services"}]}';
const clarification =
  '{"question":"Which tax rate?","type":"radio","options":[{"label":"GST 18%","value":"gst_18"},{"label":"GST 12%","value":"gst_12"}]}';

/** A corrector that answers from a table and records what it was asked. */
function fakeCorrector(answer: (text: string) => unknown): JsonCorrector & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    async correct({ text, errors }) {
      asked.push([text, ...errors]);
      return answer(text);
    },
  };
}

describe('answer blocks: validated, repaired, corrected once or removed', () => {
  it('leaves valid blocks and the text around them exactly as written', async () => {
    const text = `Invoice drafted.\n\n\`\`\`params\n${params}\n\`\`\`\n\n\`\`\`clarification\n${clarification}\n\`\`\`\n`;
    const out = await repairBlocks(text);
    expect(out).toEqual({
      text,
      guardrails: [],
      blocks: [
        { kind: 'params', outcome: 'valid' },
        { kind: 'clarification', outcome: 'valid' },
      ],
    });
  });

  it('repairs broken JSON syntax with jsonrepair and writes the block back as valid JSON', async () => {
    const broken =
      "{operation: 'Create Invoice', applied: [{label: 'Customer', value: 'Devesh',}], pending: []";
    const out = await repairBlocks(`Done.\n\`\`\`params\n${broken}\n\`\`\`\nAnything else?`);
    expect(out.guardrails).toEqual(['json_repaired']);
    expect(out.blocks).toEqual([{ kind: 'params', outcome: 'repaired' }]);
    const body = /```params\n(.*)\n```/.exec(out.text)?.[1];
    expect(JSON.parse(body ?? '')).toEqual({
      operation: 'Create Invoice',
      applied: [{ label: 'Customer', value: 'Devesh' }],
      pending: [],
    });
    expect(out.text.endsWith('Anything else?')).toBe(true);
  });

  it('closes a block the model left unterminated at the end of the answer', async () => {
    const out = await repairBlocks(`Pick one:\n\`\`\`clarification\n${clarification.slice(0, -3)}`);
    expect(out.blocks).toEqual([{ kind: 'clarification', outcome: 'repaired' }]);
    expect(out.text).toMatch(/```clarification\n\{.*\}\n```$/);
  });

  it('asks the LLM once when the JSON parses but breaks the schema, and re-validates its answer', async () => {
    const wrong =
      '{"question":"Which tax rate?","type":"radio","options":[{"label":"GST 18%","value":"gst_18"}]}';
    const corrector = fakeCorrector(() => JSON.parse(clarification));
    const out = await repairBlocks(`\`\`\`clarification\n${wrong}\n\`\`\``, { corrector });
    expect(out.guardrails).toEqual(['json_llm_corrected']);
    expect(out.text).toBe(`\`\`\`clarification\n${clarification}\n\`\`\``);
    expect(corrector.asked).toHaveLength(1);
    expect(corrector.asked[0]?.join(' ')).toContain('options');
  });

  it('removes a block that neither repair nor the LLM can fix, and one the LLM answers wrongly', async () => {
    const text = 'Here you go.\n\n```card\n[1, 2]\n```\n\nThanks.';
    const out = await repairBlocks(text, { corrector: fakeCorrector(() => ({ nope: true })) });
    expect(out).toEqual({
      text: 'Here you go.\n\nThanks.',
      guardrails: ['json_block_removed'],
      blocks: [{ kind: 'card', outcome: 'removed' }],
    });
    const noModel = await repairBlocks('```params\n{"operation": 5}\n```');
    expect(noModel.text).toBe('');
    expect(noModel.guardrails).toEqual(['json_block_removed']);
  });

  it('ignores other fenced code and text without blocks', async () => {
    const text = 'Use:\n```json\n{"a": }\n```\n';
    expect(await repairBlocks(text)).toEqual({ text, guardrails: [], blocks: [] });
  });
});
