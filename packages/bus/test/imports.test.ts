import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url);

/** Every module of the package's src and the modules of the package it imports (or re-exports), type-only ones too. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(SRC).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(new URL(file, SRC), 'utf8');
    const imported = [...text.matchAll(/\b(?:from|import)\s*\(?\s*'\.\/([^']+\.ts)'/g)].map(
      (m) => m[1] as string,
    );
    graph.set(file, [...new Set(imported)].sort());
  }
  return graph;
}

/** The import cycles of the graph, each as the path that closes it (`a.ts -> b.ts -> a.ts`). */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      found.push([...path.slice(at), file].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

describe('the bus package imports', () => {
  it('finds a cycle where there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual(['a.ts -> b.ts -> c.ts -> a.ts']);
  });

  it('has no import cycle among its modules', () => {
    const graph = importGraph();
    expect(graph.get('bus.ts')?.length, 'bus.ts is read and imports its parts').toBeGreaterThan(0);
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps the core a leaf: it imports no module of the package', () => {
    expect(importGraph().get('core.ts')).toEqual([]);
  });
});
