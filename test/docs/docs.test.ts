// docs/ stays true to the code, and the code stays readable without anything outside the repository.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDocs } from '../../scripts/docs-render.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Citations a reader of the repository cannot follow: files outside it, sections of documents that
 * are not in it, and issue numbers of a tracker they may never see.
 */
const OUTSIDE_REFERENCES: { what: string; pattern: RegExp }[] = [
  { what: 'a file outside the repository', pattern: /\.\.\/shared\b/ },
  { what: 'a design document outside the repository', pattern: /\bDESIGN(?:\.md|\s*§)/ },
  { what: 'a seed document', pattern: /\bseeds?\s+0\d\d\b/i },
  { what: 'a section sign', pattern: /§|\\u00a7/i },
  { what: 'an issue number', pattern: /\bissues?\s+#?\d+/i },
  {
    what: 'an issue number',
    pattern: /\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see|PR|pull request|GH)[\s-]*#\d+|\(#\d+\)/i,
  },
];

/** This file names the patterns it looks for. */
const SCANNER = 'test/docs/docs.test.ts';

/** Files kept in the repository (and new ones not ignored), minus what no reader reads as source. */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\0'))].filter(
    (path) =>
      path !== '' &&
      path !== SCANNER &&
      !path.split('/').includes('node_modules') &&
      !/(^|\/)(pnpm-lock\.yaml|package-lock\.json)$/.test(path) &&
      // The hand-written pages are the documents the code points to.
      !/^docs\/.*\.md$/.test(path) &&
      existsSync(join(ROOT, path)) &&
      statSync(join(ROOT, path)).isFile(),
  );
}

/** Every line of a text file that cites something outside the repository, as `path:line: text`. */
function outsideReferences(path: string): string[] {
  const bytes = readFileSync(join(ROOT, path));
  if (bytes.includes(0)) return [];
  const hits: string[] = [];
  for (const [index, line] of bytes.toString('utf8').split('\n').entries()) {
    const found = OUTSIDE_REFERENCES.find(({ pattern }) => pattern.test(line));
    if (found) hits.push(`${path}:${index + 1}: ${found.what}: ${line.trim().slice(0, 160)}`);
  }
  return hits;
}

describe('docs/', () => {
  it('holds what `npm run docs` generates from the code now', async () => {
    const generated = await renderDocs();
    const stale = Object.entries(generated)
      .filter(([path, text]) => {
        const file = join(ROOT, path);
        return !existsSync(file) || readFileSync(file, 'utf8') !== text;
      })
      .map(([path]) => path);
    expect(stale, `out of date: ${stale.join(', ')} — run npm run docs and commit the result`).toEqual([]);
  }, 60_000);

  it('is where every citation points: no source, test or config file cites a file, seed section or issue outside the repository', () => {
    const hits = repositoryFiles().flatMap(outsideReferences);
    expect(hits, `explain in place or point into docs/:\n${hits.join('\n')}`).toEqual([]);
  });
});
