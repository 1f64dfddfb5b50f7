// Fifty zip bombs uploaded at once leave the gateway serving: honest ones are
// refused by their central directory before any parser runs, lying ones by the worker that proves
// their sizes, a few at a time; meanwhile /healthz and a normal query are answered, nothing is
// stored, and the process's memory stays bounded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeXlsx, makeZipBomb, type SampleFile } from '@munim/attachments/testing';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type GatewayTestbed, gatewayTestbed, postQuery, readSse } from './helpers.ts';

const tenant = { entityId: 'ent-bombs', orgId: 'org-bombs' };
const MB = 1024 * 1024;
let bed: GatewayTestbed;
let url: string;
let dir: string;

test.beforeAll(async ({ nats, db: fileDb }) => {
  bed = await gatewayTestbed({ nats, db: fileDb }, () => 'The books are fine.');
  dir = mkdtempSync(join(tmpdir(), 'munim-gw-bombs-'));
  ({ url } = await bed.startGateway({ ATTACHMENTS_DIR: dir, ATTACHMENTS_SIGNING_KEY: 'b'.repeat(40) }));
});

afterAll(async () => {
  await bed?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Uploads one file; the same Blob may back many uploads, so the test itself holds one copy. */
async function upload(file: Blob, name: string): Promise<{ status: number; body: unknown }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(tenant)) form.set(k, v);
  form.set('file', file, name);
  const res = await fetch(`${url}/v1/attachments`, { method: 'POST', body: form });
  return { status: res.status, body: await res.json() };
}

const blobOf = (file: SampleFile) => new Blob([new Uint8Array(file.bytes)], { type: file.type });
const storedCount = async () =>
  Number(
    (
      await bed.db
        .selectFrom('attachments')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('fifty zip bombs at once', () => {
  test('are each refused with a 4xx or 503 while the gateway keeps answering, in bounded memory', async () => {
    // A real file first, so what is loaded once (parsers, pools) is not counted as growth.
    const sheet = await makeXlsx();
    expect((await upload(blobOf(sheet), sheet.name)).status).toBe(201);
    const storedBefore = await storedCount();

    // Honest bombs declare their 2 GiB; lying ones declare 1000 bytes per 1 GiB entry.
    const kinds = [
      { honest: true, file: makeZipBomb({ shape: 'xlsx' }) },
      { honest: true, file: makeZipBomb({ shape: 'docx' }) },
      { honest: false, file: makeZipBomb({ shape: 'xlsx', entries: 1, declaredBytes: 1000 }) },
      { honest: false, file: makeZipBomb({ shape: 'docx', entries: 1, declaredBytes: 1000 }) },
    ].map((kind) => ({ ...kind, blob: blobOf(kind.file), name: kind.file.name }));
    for (const kind of kinds) expect(kind.file.bytes.length).toBeLessThan(3 * MB);

    globalThis.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    let settled = 0;
    try {
      const bombs = Array.from({ length: 50 }, (_, i) => {
        const kind = kinds[i % kinds.length] as (typeof kinds)[number];
        return upload(kind.blob, kind.name).then((result) => {
          settled += 1;
          return { ...result, honest: kind.honest };
        });
      });

      // While they are in flight: the process is up and a normal query is answered in full.
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      const query = await postQuery(url, { query: 'show overdue bills', ...tenant });
      expect(query.status).toBe(200);
      const { events } = await readSse(query);
      expect(events.at(-1)).toMatchObject({ event: 'complete', data: { response: 'The books are fine.' } });
      const settledDuringQuery = settled;

      const results = await Promise.all(bombs);
      expect(settledDuringQuery).toBeLessThan(results.length);
      for (const result of results) {
        expect([413, 415, 503]).toContain(result.status);
        if (result.status === 503) continue;
        expect(result.body).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'file' } });
      }
      // Honest bombs never reach a worker: their central directory names the limit.
      for (const result of results.filter((r) => r.honest)) {
        expect(result).toMatchObject({
          status: 413,
          body: {
            error: { message: 'file: the archive expands to 2.0 GB when decompressed; the limit is 50 MB' },
          },
        });
      }
      const lying = results.filter((r) => !r.honest && r.status === 413);
      expect(lying.length).toBeGreaterThan(0);
      for (const result of lying) {
        expect(JSON.stringify(result.body)).toMatch(/expands to more than the 1000 bytes it declares/);
      }
      const growthMb = (peak - baseline) / MB;
      console.info(
        `zip bombs: ${results.filter((r) => r.status === 413).length}×413, ` +
          `${results.filter((r) => r.status === 503).length}×503; RSS ${Math.round(baseline / MB)} MB → peak ` +
          `${Math.round(peak / MB)} MB (growth ${Math.round(growthMb)} MB)`,
      );
      expect(growthMb).toBeLessThan(512);
    } finally {
      clearInterval(sampler);
    }

    expect(await storedCount()).toBe(storedBefore);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await upload(blobOf(sheet), sheet.name)).status).toBe(201);
  });
});
