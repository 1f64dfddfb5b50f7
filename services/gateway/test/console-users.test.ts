// The console's users and keys page in headless Chromium, on the admin API of a gateway with its
// own database role: an admin adds a user with roles per entity, issues a key that is shown once
// (and not after a reload) and acts as that user with those roles, revokes it (it stops working),
// and disables the user. A page without an admin key shows nobody.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createDb, type Database } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect } from 'vitest';
import { startGateway } from './helpers.ts';

const SHOTS = fileURLToPath(new URL('../../../test-results/gateway-console/', import.meta.url));
const ADMIN_KEY = 'console-users-admin-key-0000000001';
const TENANT_KEY = 'console-users-tenant-key-000000001';

let db: Kysely<Database>;
let url: string;
let stop: () => Promise<void>;
let browser: Browser;

/** What a key may do with the audit trail of an entity of org-a: the HTTP status. */
const auditStatus = async (key: string, entityId: string) =>
  (
    await fetch(`${url}/v1/audit?entityId=${entityId}&orgId=org-a`, {
      headers: { authorization: `Bearer ${key}` },
    })
  ).status;

async function signIn(page: Page, key = ADMIN_KEY) {
  await page.goto(`${url}/users.html`);
  await page.getByLabel('Admin key or token').fill(key);
  await page.getByLabel('Organisation', { exact: true }).fill('org-a');
  await page.getByRole('button', { name: 'Show users' }).click();
}

test.beforeAll(async ({ nats, serviceLogins }) => {
  await mkdir(SHOTS, { recursive: true });
  db = createDb(serviceLogins.gateway, { max: 3 });
  const started = await startGateway(
    nats,
    { GATEWAY_ADMIN_KEYS: ADMIN_KEY, GATEWAY_API_KEYS: `${TENANT_KEY}:ent-1:org-a` },
    db,
  );
  url = started.url;
  stop = () => started.gateway.stop();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await db?.destroy();
});

describe('the users and keys page', () => {
  test('adds a user, issues a key shown once, revokes it, and disables the user', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    // A step that cannot be done fails on its own, naming the locator, well within the test's time.
    page.setDefaultTimeout(5000);
    const errors: Error[] = [];
    page.on('pageerror', (error) => errors.push(error));
    page.on('dialog', (dialog) => void dialog.accept());
    try {
      // The chat links to the page.
      await page.goto(url);
      await page.getByRole('link', { name: 'Users and keys' }).click();
      await page.waitForURL(`${url}/users.html`);

      await signIn(page);
      await expect.poll(() => page.locator('#status').textContent()).toBe('0 users in org-a.');

      await page.getByLabel('Name', { exact: true }).fill('Priya Sharma');
      await page.getByLabel('Email', { exact: true }).fill('priya@example.in');
      await page.getByLabel('Phone', { exact: true }).fill('+919812345678');
      await page.locator('#role-rows li').nth(0).getByLabel('Entity', { exact: true }).fill('ent-1');
      await page
        .locator('#role-rows li')
        .nth(0)
        .getByRole('combobox', { name: /^Role/ })
        .selectOption('maker');
      await page.getByRole('button', { name: 'Add a role' }).click();
      await page.locator('#role-rows li').nth(1).getByLabel('Entity', { exact: true }).fill('ent-2');
      await page
        .locator('#role-rows li')
        .nth(1)
        .getByRole('combobox', { name: /^Role/ })
        .selectOption('approver');
      await page.getByRole('button', { name: 'Add the user' }).click();

      const row = page.locator('#users tbody tr[data-name="Priya Sharma"]');
      await row.waitFor();
      expect(await row.locator('td').allTextContents()).toEqual([
        'priya@example.in · +919812345678',
        'maker of ent-1approver of ent-2',
        'active',
        'KeysDisable',
      ]);
      const userId = await row.getAttribute('data-user-id');
      expect(userId).toMatch(/^[0-9a-f-]{36}$/);

      await row.getByRole('button', { name: 'Keys' }).click();
      const keys = page.locator(`tr[data-keys-of="${userId}"]`);
      await keys.getByText('No keys yet.').waitFor();
      await keys.getByLabel('Label', { exact: true }).fill('billing laptop');
      await keys.getByRole('button', { name: 'Issue a key' }).click();
      await page.locator('#issued').waitFor();
      const key = (await page.locator('#issued-key').textContent()) ?? '';
      expect(key).toMatch(/^munim_[A-Za-z0-9_-]{20,}$/);
      expect(await page.locator('#issued-for').textContent()).toBe('Priya Sharma');
      await keys.locator('li', { hasText: 'billing laptop' }).waitFor();
      expect(await keys.locator('li').first().textContent()).toContain(`${key.slice(0, 12)}…`);
      await page.screenshot({ path: `${SHOTS}20-users-key-issued.png`, fullPage: true });

      // The key acts as Priya, with her roles per entity: she approves on ent-2, makes on ent-1.
      expect(await auditStatus(key, 'ent-2')).toBe(200);
      expect(await auditStatus(key, 'ent-1')).toBe(403);

      // After a reload the key is nowhere on the page, its prefix and label are.
      await page.reload();
      await page.locator('#users tbody tr[data-name="Priya Sharma"]').waitFor();
      expect(await page.locator('#issued').isHidden()).toBe(true);
      await page.getByRole('button', { name: 'Keys' }).click();
      await keys.locator('li', { hasText: 'billing laptop' }).waitFor();
      expect(await page.content()).not.toContain(key);
      expect(
        await page.evaluate(() => {
          const { sessionStorage: session, localStorage: local } = globalThis as unknown as {
            sessionStorage: {
              length: number;
              key(i: number): string | null;
              getItem(k: string): string | null;
            };
            localStorage: {
              length: number;
              key(i: number): string | null;
              getItem(k: string): string | null;
            };
          };
          const all = (s: typeof session) =>
            Array.from({ length: s.length }, (_, i) => s.getItem(s.key(i) ?? '') ?? '');
          return [...all(session), ...all(local)];
        }),
      ).not.toContain(key);

      await keys.getByRole('button', { name: 'Revoke billing laptop' }).click();
      await keys.locator('li', { hasText: 'revoked' }).waitFor();
      expect(await keys.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
      expect(await auditStatus(key, 'ent-2')).toBe(401);

      // A second key, then the user disabled: the key stops working too.
      await keys.getByRole('button', { name: 'Issue a key' }).click();
      await expect.poll(() => keys.locator('li').count()).toBe(2);
      const second = (await page.locator('#issued-key').textContent()) ?? '';
      expect(second).not.toBe(key);
      expect(await auditStatus(second, 'ent-2')).toBe(200);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await page.locator('#issued').isHidden()).toBe(true);
      expect(await page.locator('#issued-key').textContent()).toBe('');
      await row.getByRole('button', { name: 'Disable' }).click();
      await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('disabled');
      expect(await keys.getByRole('button', { name: 'Issue a key' }).count()).toBe(0);
      expect(await auditStatus(second, 'ent-2')).toBe(401);
      await page.screenshot({ path: `${SHOTS}21-users-disabled.png`, fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test('says what is wrong with a key that is not an admin’s, and with a bad phone number', async () => {
    const page = await browser.newPage();
    try {
      await signIn(page, TENANT_KEY);
      await expect
        .poll(() => page.locator('#status').textContent())
        .toMatch(/^Could not load: Admin endpoints need an admin key/);
      expect(await page.locator('#users tbody tr').count()).toBe(0);

      await signIn(page);
      await page.getByLabel('Name', { exact: true }).fill('Ravi');
      await page.getByLabel('Phone', { exact: true }).fill('98123');
      await page.locator('#role-rows li').nth(0).getByLabel('Entity', { exact: true }).fill('ent-1');
      await page.getByRole('button', { name: 'Add the user' }).click();
      // The browser asks for the number's form before anything is sent.
      expect(
        await page
          .getByLabel('Phone', { exact: true })
          .evaluate((input) => (input as { validity: { valid: boolean } }).validity.valid),
      ).toBe(false);
      await page.getByLabel('Phone', { exact: true }).fill('');
      await page.getByLabel('Email', { exact: true }).fill('ravi@');
      await page.getByLabel('Email', { exact: true }).evaluate((input) => {
        (input as { type: string }).type = 'text';
      });
      await page.getByRole('button', { name: 'Add the user' }).click();
      await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Could not save: email/);
      expect(await page.locator('#users tbody tr[data-name="Ravi"]').count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
