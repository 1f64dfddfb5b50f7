/**
 * A patch is made for one exact version of a package: a range in the catalog would let the next
 * lockfile update move past it, and the install then fails (or runs unpatched code).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const workspace = parse(readFileSync(new URL('../../pnpm-workspace.yaml', import.meta.url), 'utf8')) as {
  catalog: Record<string, string>;
  patchedDependencies?: Record<string, string>;
};
const lockfile = readFileSync(new URL('../../pnpm-lock.yaml', import.meta.url), 'utf8');

describe('patched dependencies', () => {
  const patched = Object.keys(workspace.patchedDependencies ?? {});

  it('are pinned in the catalog to exactly the version their patch is for', () => {
    expect(patched.length).toBeGreaterThan(0);
    for (const key of patched) {
      const at = key.lastIndexOf('@');
      const [name, version] = [key.slice(0, at), key.slice(at + 1)];
      expect(workspace.catalog[name], `${name} in the catalog`).toBe(version);
    }
  });

  it('are the only version of the package in the lockfile', () => {
    for (const key of patched) {
      const name = key.slice(0, key.lastIndexOf('@'));
      const versions = new Set(
        [...lockfile.matchAll(new RegExp(`^  '?${name.replace(/[/.]/g, '\\$&')}@(\\d[^:'(]*)`, 'gm'))].map(
          (m) => m[1],
        ),
      );
      expect([...versions], name).toEqual([key.slice(key.lastIndexOf('@') + 1)]);
    }
  });
});
