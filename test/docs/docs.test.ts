// docs/ stays true to the code.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDocs } from '../../scripts/docs-render.ts';

const ROOT = join(import.meta.dirname, '..', '..');

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
});
