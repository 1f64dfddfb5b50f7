// An attachment is its tenant's, entity and org together: another org with the
// same entity id can neither find, list, bind nor delete it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { Attachments, LinkSigner, LocalStorage, type Owner } from '../src/index.ts';
import { makeCsv } from '../src/testing.ts';

const dir = mkdtempSync(join(tmpdir(), 'munim-att-tenants-'));
let db: Kysely<Database>;
let attachments: Attachments;

test.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
  attachments = new Attachments({
    db,
    storage: new LocalStorage(dir),
    signer: new LinkSigner('k'.repeat(32)),
  });
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

const orgA: Owner = { entityId: 'ent-shared', orgId: 'org-a' };
const orgB: Owner = { entityId: 'ent-shared', orgId: 'org-b' };

describe('attachments of two orgs sharing an entity id', () => {
  test('are found, listed, bound and deleted by their own org only', async () => {
    const file = makeCsv();
    const upload = (owner: Owner) =>
      attachments.upload({ bytes: file.bytes, filename: file.name, declaredType: file.type, owner });
    const [ofA, ofB] = [await upload(orgA), await upload(orgB)];
    expect([ofA.org_id, ofB.org_id]).toEqual(['org-a', 'org-b']);

    expect(await attachments.find(ofA.id, orgB)).toBeUndefined();
    expect((await attachments.find(ofA.id, orgA))?.id).toBe(ofA.id);
    expect((await attachments.findMany([ofA.id, ofB.id], orgB)).map((r) => r.id)).toEqual([ofB.id]);

    await attachments.bindToConversation([ofA.id, ofB.id], orgB, 'conv-b');
    expect((await attachments.find(ofA.id, orgA))?.conversation_id).toBeNull();
    expect((await attachments.find(ofB.id, orgB))?.conversation_id).toBe('conv-b');

    expect(await attachments.remove(ofA.id, orgB)).toBe(false);
    expect((await attachments.content(ofA)).equals(file.bytes)).toBe(true);
    expect(await attachments.remove(ofA.id, orgA)).toBe(true);
    expect(await attachments.find(ofA.id, orgA)).toBeUndefined();
  });
});
