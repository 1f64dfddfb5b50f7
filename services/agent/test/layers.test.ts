import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * The agent's groups, lowest first: a module may import its own group and the groups below it,
 * never one above. `app` is the files at the top of src (wiring, main, env). The README says what
 * each group holds.
 */
const LAYERS = ['render', 'model', 'run', 'tool-step', 'analytics', 'answer', 'confirmation', 'turn', 'app'];

/** Every module of src (its path from src) and the modules of src it imports or re-exports, type-only ones too. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const specifiers = [...text.matchAll(/\b(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
    const imported = specifiers.map((s) => relative(SRC, normalize(join(SRC, dirname(file), s))));
    graph.set(file, [...new Set(imported)].sort());
  }
  return graph;
}

/** The group of a module: its folder under src, or `app` for the files at the top. */
const groupOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : 'app');

/** Imports that go up a layer, or into a group that has no layer, as `from -> to`. */
function upward(graph: Map<string, string[]>, layers: readonly string[]): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const own = layers.indexOf(groupOf(file));
    for (const target of imports) {
      const theirs = layers.indexOf(groupOf(target));
      if (own < 0 || theirs < 0 || theirs > own) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

/** The cycles between groups, each as the path that closes it (`a -> b -> a`). */
function groupCycles(graph: Map<string, string[]>): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = groupOf(file);
    for (const target of imports) {
      const to = groupOf(target);
      if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (group: string, path: string[]) => {
    const at = path.indexOf(group);
    if (at >= 0) {
      found.push([...path.slice(at), group].join(' -> '));
      return;
    }
    if (done.has(group)) return;
    for (const next of edges.get(group) ?? []) visit(next, [...path, group]);
    done.add(group);
  };
  for (const group of edges.keys()) visit(group, []);
  return found;
}

describe('the layers of the agent', () => {
  it('reads the imports of every module, type-only and re-exports included', () => {
    const graph = importGraph();
    expect(graph.get('app.ts')).toContain('turn/query.ts');
    expect(graph.get('run/run.ts')).toContain('run/context.ts');
    expect(graph.get('answer/guardrails.ts')).toContain('run/run.ts');
    expect(graph.size).toBeGreaterThan(60);
  });

  it('finds an import that goes up a layer, one into a group with no layer, and a cycle', () => {
    const graph = new Map([
      ['model/llm.ts', ['run/run.ts']],
      ['run/run.ts', ['model/llm.ts', 'extra/thing.ts']],
      ['app.ts', ['run/run.ts']],
    ]);
    expect(upward(graph, LAYERS)).toEqual(['model/llm.ts -> run/run.ts', 'run/run.ts -> extra/thing.ts']);
    expect(groupCycles(graph)).toEqual(['model -> run -> model']);
  });

  it('has every group in a layer and no import from a lower layer to a higher one', () => {
    const graph = importGraph();
    expect(new Set([...graph.keys()].map(groupOf))).toEqual(new Set(LAYERS));
    expect(upward(graph, LAYERS)).toEqual([]);
  });

  it('has no cycle between groups', () => {
    expect(groupCycles(importGraph())).toEqual([]);
  });
});
