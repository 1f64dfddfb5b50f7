import type { ToolDefinition } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { SchemaCompiler, validateCall } from '../src/app.ts';
import { MUST_BLOCK, type PublicTool, VALID_CALLS } from './public-shapes.ts';

const compiler = new SchemaCompiler();

/** The tool as the executor's registry sends it: a write (every tool here changes the books). */
const definition = (tool: PublicTool): ToolDefinition => ({
  name: tool.name,
  isWrite: true,
  inputSchema: structuredClone(tool.inputSchema),
});

const check = (tool: PublicTool, args: Record<string, unknown>) =>
  validateCall(definition(tool), { tool: tool.name, args, callId: 'c', attempt: 1 }, compiler, new Set());

describe('precision on the public servers: the schema decides what is required', () => {
  it.each(VALID_CALLS.map((c) => ({ ...c, server: c.tool.server, name: c.tool.name })))(
    '$server $name: $what passes untouched',
    ({ tool, args }) => {
      const sent = structuredClone(args);
      const result = check(tool, sent);
      expect(result.message).toMatch(/^All \d+ fields? of .+ are valid\.$/);
      expect(result).toMatchObject({ status: 'passed', isWrite: true, missingFields: [], issues: [] });
      expect(result.args).toEqual(args);
      expect(sent).toEqual(args);
    },
  );

  it.each(MUST_BLOCK.map((c) => ({ ...c, server: c.tool.server, name: c.tool.name })))(
    '$server $name: $what is blocked, naming $field',
    ({ tool, args, field }) => {
      const result = check(tool, structuredClone(args));
      expect(result.status).toBe('blocked');
      expect(result.args).toBeUndefined();
      const named = [...result.missingFields, ...result.issues.map((i) => i.field)];
      expect(named).toContain(field);
      expect(result.message).not.toBe('');
    },
  );

  it('covers at least 50 valid calls from five servers and blocks every must-block case', () => {
    const servers = new Set(VALID_CALLS.map((c) => c.tool.server));
    expect(servers.size).toBeGreaterThanOrEqual(5);
    expect(VALID_CALLS.length).toBeGreaterThanOrEqual(50);
    const passed = VALID_CALLS.filter((c) => check(c.tool, structuredClone(c.args)).status === 'passed');
    const blocked = MUST_BLOCK.filter((c) => check(c.tool, structuredClone(c.args)).status === 'blocked');
    console.info(
      `precision: ${passed.length}/${VALID_CALLS.length} valid calls passed untouched; ` +
        `${blocked.length}/${MUST_BLOCK.length} must-block calls blocked`,
    );
    expect([passed.length, blocked.length]).toEqual([VALID_CALLS.length, MUST_BLOCK.length]);
  });
});
