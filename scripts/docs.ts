// `npm run docs`: writes the generated files of docs/ (see scripts/docs-render.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DocsError, renderDocs } from './docs-render.ts';

const root = join(import.meta.dirname, '..');
try {
  for (const [path, text] of Object.entries(await renderDocs())) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    console.log(`wrote ${path}`);
  }
} catch (error) {
  if (!(error instanceof DocsError)) throw error;
  console.error(`npm run docs: ${error.message}`);
  process.exitCode = 1;
}
