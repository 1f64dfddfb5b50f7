import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every service is shaped alike, so a newcomer finds their way in any of them: an `app.ts` that
 * only wires, modules of one concern (no source file over 400 lines) and no function over about
 * 150 lines. Read from the sources with the TypeScript parser.
 */
const ROOT = join(import.meta.dirname, '../..');
const SERVICES = readdirSync(join(ROOT, 'services')).filter((s) =>
  statSync(join(ROOT, 'services', s)).isDirectory(),
);
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 150;
// "About a hundred": an app.ts that only wires, with room for its imports.
const MAX_APP_LINES = 120;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const files = SERVICES.flatMap((s) => sources(join(ROOT, 'services', s, 'src')));
const lines = (text: string) => text.split('\n').length;

/** Every function of a file longer than the limit, as `file:line name (n lines)`. */
function longFunctions(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = end - start + 1;
      if (length > MAX_FUNCTION_LINES) {
        const name = (node as ts.FunctionLikeDeclaration).name?.getText(source) ?? '(anonymous)';
        found.push(`${relative(ROOT, path)}:${start + 1} ${name} (${length} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('every service is shaped alike', () => {
  it('reads the sources of every service', () => {
    expect(SERVICES).toEqual(
      expect.arrayContaining(['agent', 'gateway', 'logger', 'mcp-executor', 'router', 'validator']),
    );
    expect(files.length).toBeGreaterThan(100);
  });

  it(`has no source file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((f) => [relative(ROOT, f), lines(readFileSync(f, 'utf8'))] as const)
      .filter(([, n]) => n > MAX_FILE_LINES)
      .map(([f, n]) => `${f} (${n} lines)`);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap(longFunctions)).toEqual([]);
  });

  it('has an app.ts in every service that only wires', () => {
    for (const service of SERVICES) {
      const app = join(ROOT, 'services', service, 'src', 'app.ts');
      let text = '';
      try {
        text = readFileSync(app, 'utf8');
      } catch {
        // A service without an app (none today) would fail here.
      }
      expect(text, `services/${service}/src/app.ts`).not.toBe('');
      expect(lines(text), `services/${service}/src/app.ts`).toBeLessThanOrEqual(MAX_APP_LINES);
    }
  });
});
