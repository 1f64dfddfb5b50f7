import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolPolicy, ToolPolicyError, toDefinition } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'munim-policy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const listed = (name: string, annotations?: Record<string, unknown>) => ({
  name,
  inputSchema: { type: 'object', properties: {} },
  ...(annotations ? { annotations } : {}),
});

const YAML_POLICY = `
# Our books server is ours: trust its annotations.
servers:
  books: { trustAnnotations: true }
tools:
  - match: "echo"
    access: read
  - match: "sync-*"
    server: erp
    access: write
    tier: 0
  - match: "post_journal"
    tier: 3
    rules: { required: [Narration], balancedJournal: true }
  - match: "*journal*"
    rules: { nonEmpty: [Lines] }
`;

describe('the operator tool policy (TOOL_POLICY_FILE)', () => {
  const policy = ToolPolicy.parse(YAML_POLICY);

  it('decides read or write, tier and rules per tool name or glob and per server; the most specific entry wins', () => {
    expect(policy.decide('erp', 'echo')).toMatchObject({ access: 'read' });
    expect(policy.decide('erp', 'sync-ledger')).toMatchObject({ access: 'write', tier: 0 });
    expect(policy.decide('books', 'sync-ledger')).toBeUndefined();
    expect(policy.decide('books', 'post_journal')).toEqual({
      tier: 3,
      rules: { required: ['Narration'], balancedJournal: true },
      source: 'tools[2] "post_journal"',
    });
    expect(policy.decide('books', 'create_journal')?.rules).toEqual({ nonEmpty: ['Lines'] });
    expect(policy.trusts('books')).toBe(true);
    expect(policy.trusts('erp')).toBe(false);
  });

  it('classifies through it: policy over annotations over verbs, annotations only from trusted servers', () => {
    const def = (server: string, name: string, annotations?: Record<string, unknown>) =>
      toDefinition(listed(name, annotations), server, policy);
    expect(def('erp', 'echo')).toMatchObject({ isWrite: false, access: { reason: 'policy' } });
    expect(def('erp', 'sync-ledger')).toMatchObject({ isWrite: true, access: { reason: 'policy', tier: 0 } });
    expect(def('books', 'close_period', { readOnlyHint: true })).toMatchObject({
      isWrite: false,
      access: { reason: 'annotation' },
    });
    expect(def('erp', 'close_period', { readOnlyHint: true })).toMatchObject({
      isWrite: true,
      access: { reason: 'verb', tier: 3, destructive: true },
    });
    expect(def('erp', 'get_invoice', { readOnlyHint: false })).toMatchObject({
      isWrite: true,
      access: { reason: 'annotation', tier: 1 },
    });
    // Annotations are hints: a read must be proven, and `destructiveHint: true` says it is not one.
    expect(def('erp', 'get_invoice', { destructiveHint: true })).toMatchObject({
      isWrite: true,
      access: { reason: 'annotation', tier: 3 },
    });
    expect(def('erp', 'archive-thing', { destructiveHint: false })).toMatchObject({
      access: { tier: 3 },
    });
    expect(def('erp', 'tag_invoice', { destructiveHint: true })).toMatchObject({ access: { tier: 3 } });
    expect(def('books', 'post_journal')?.access).toMatchObject({
      kind: 'write',
      reason: 'verb',
      tier: 3,
      rules: { required: ['Narration'], balancedJournal: true },
    });
    expect(def('books', 'post_journal')?.access?.detail).toContain('tier 3 from the tool policy');
  });

  it('reads JSON as well as YAML', () => {
    const json = ToolPolicy.parse('{"tools": [{"match": "books.*", "access": "read"}]}');
    expect(json.decide('x', 'books.list')).toMatchObject({ access: 'read' });
    expect(ToolPolicy.parse('').decide('x', 'anything')).toBeUndefined();
  });

  it.each([
    ['tools:\n  - { match: "a" }', /tools\[0\] \(match "a"\): says nothing/],
    [
      'tools:\n  - { match: "a", access: read }\n  - { match: "post_*", tier: 7 }',
      /tools\[1\] \(match "post_\*"\): tier/,
    ],
    [
      'tools:\n  - { match: "get_*", access: read, tier: 2 }',
      /tools\[0\] \(match "get_\*"\): a read has no tier/,
    ],
    ['tools:\n  - { match: "x", access: maybe }', /tools\[0\] \(match "x"\): access/],
    ['tools:\n  - { match: "x", acess: read }', /tools\[0\] \(match "x"\).*acess/],
    [
      'tools:\n  - { match: "x", rules: { required: Narration } }',
      /tools\[0\] \(match "x"\): rules\.required/,
    ],
    ['servers:\n  books: { trust: yes }', /servers\."books".*trust/],
    ['tools: [ {match: ', /not valid JSON or YAML/],
  ])('refuses a bad policy, naming the entry: %j', (text, message) => {
    expect(() => ToolPolicy.parse(text)).toThrow(ToolPolicyError);
    expect(() => ToolPolicy.parse(text)).toThrow(message);
  });

  it('stops the service at start on a bad or missing file, naming the variable and the entry', async () => {
    const base = {
      NATS_URL: 'nats://127.0.0.1:4222',
      MCP_SERVER_URL: 'http://127.0.0.1:1/mcp',
      DATABASE_URL: 'postgres://x/y',
    };
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'tools:\n  - { match: "void_*", tier: 9 }\n');
    expect(() => loadEnv({ ...base, TOOL_POLICY_FILE: bad })).toThrow(
      /TOOL_POLICY_FILE: tools\[0\] \(match "void_\*"\): tier/,
    );
    expect(() => loadEnv({ ...base, TOOL_POLICY_FILE: join(dir, 'absent.yaml') })).toThrow(
      /TOOL_POLICY_FILE: cannot be read \(ENOENT\)/,
    );
    const good = join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ tools: [{ match: 'echo', access: 'read' }] }));
    expect(
      loadEnv({ ...base, TOOL_POLICY_FILE: good }).TOOL_POLICY_FILE?.decide('mcp', 'echo'),
    ).toMatchObject({
      access: 'read',
    });
  });
});
