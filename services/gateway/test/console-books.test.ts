// The console's closed periods and business settings page in headless Chromium, on the admin API
// of a gateway with its own database role: the chat links to it; an entity's owner closes the
// books up to a day (said in the business's words, on the audit trail), changes the locale (the
// lock then reads the new way), has a bad GSTIN refused with the field marked, and reopens the
// books; another entity's settings are refused to that owner. At a desktop's width and a phone's.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createDb, type Database, readAudit, readLockDate } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect } from 'vitest';
import { startGateway } from './helpers.ts';

const SHOTS = fileURLToPath(new URL('../../../test-results/gateway-console/', import.meta.url));
const ADMIN_KEY = 'console-books-admin-key-00000000001';
const OWNER_KEY = 'console-books-owner-key-00000000001';
const OWNER_KEY_2 = 'console-books-owner-key-00000000002';
const WIDTHS = [
  { width: 1100, key: OWNER_KEY, tenant: { entityId: 'ent-books-1', orgId: 'org-books' } },
  { width: 390, key: OWNER_KEY_2, tenant: { entityId: 'ent-books-2', orgId: 'org-books' } },
];

let db: Kysely<Database>;
let url: string;
let stop: () => Promise<void>;
let browser: Browser;

async function signIn(page: Page, key: string, entityId: string) {
  await page.goto(`${url}/books.html`);
  await page.getByLabel('Admin key or token').fill(key);
  await page.getByLabel('Entity', { exact: true }).fill(entityId);
  await page.getByLabel('Organisation', { exact: true }).fill('org-books');
  await page.getByRole('button', { name: 'Show settings' }).click();
}

test.beforeAll(async ({ nats, serviceLogins }) => {
  await mkdir(SHOTS, { recursive: true });
  db = createDb(serviceLogins.gateway, { max: 3 });
  const started = await startGateway(
    nats,
    {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: WIDTHS.map((w) => `${w.key}:${w.tenant.entityId}:${w.tenant.orgId}`).join(','),
    },
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

describe('the closed periods and business settings page', () => {
  for (const { width, key, tenant } of WIDTHS) {
    test(`closes and reopens the books and changes the business settings (${width} px)`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      page.setDefaultTimeout(5000);
      const errors: Error[] = [];
      page.on('pageerror', (error) => errors.push(error));
      page.on('dialog', (dialog) => void dialog.accept());
      try {
        await page.goto(url);
        await page.getByRole('link', { name: 'Closed periods and settings' }).click();
        await page.waitForURL(`${url}/books.html`);
        await signIn(page, key, tenant.entityId);
        await expect
          .poll(() => page.locator('#lock-now').textContent())
          .toBe('No period is closed: changes of any date may be made.');
        await expect.poll(() => page.locator('#context-now').textContent()).toMatch(/^Not set up yet/);
        expect(await page.getByRole('button', { name: 'Reopen the books' }).isHidden()).toBe(true);

        // Close the books up to 31 October 2026.
        await page.getByLabel('Close the books up to').fill('2026-10-31');
        await page.getByRole('button', { name: 'Save the lock date' }).click();
        await expect
          .poll(() => page.locator('#lock-now').textContent())
          .toBe('The books are closed up to 31 October 2026.');
        expect(await readLockDate(db, tenant)).toMatchObject({ lockDate: '2026-10-31' });

        // The business's settings: a new locale writes the lock its way.
        await page.getByLabel('Company name').fill('Sharma Traders');
        await page.getByLabel('Locale').fill('en-US');
        await page.getByLabel('Financial year starts in').selectOption('1');
        await page.getByLabel('State').fill('Maharashtra');
        await page.getByRole('button', { name: 'Save the business settings' }).click();
        await expect
          .poll(() => page.locator('#status').textContent())
          .toBe('Saved: companyName, locale, fyStartMonth, state.');
        await expect
          .poll(() => page.locator('#lock-now').textContent())
          .toBe('The books are closed up to October 31, 2026.');
        expect(await page.locator('#context-now').textContent()).toMatch(
          /^Settings of this entity: India, INR/,
        );

        // A GSTIN whose check character is wrong: refused, the field marked, nothing saved.
        await page.getByLabel('GSTIN').fill('27AAPFU0939F1ZW');
        await page.getByRole('button', { name: 'Save the business settings' }).click();
        await expect
          .poll(() => page.locator('#status').textContent())
          .toMatch(/^Could not save: gstin: must be a GSTIN/);
        expect(await page.getByLabel('GSTIN').getAttribute('aria-invalid')).toBe('true');
        await page.getByLabel('GSTIN').fill('27AAPFU0939F1ZV');
        await page.getByRole('button', { name: 'Save the business settings' }).click();
        await expect.poll(() => page.locator('#status').textContent()).toBe('Saved: gstin.');
        expect(await page.getByLabel('GSTIN').getAttribute('aria-invalid')).toBeNull();
        await page.screenshot({ path: `${SHOTS}/books-${width}.png`, fullPage: true });

        // Reopen the books.
        await page.getByRole('button', { name: 'Reopen the books' }).click();
        await expect
          .poll(() => page.locator('#lock-now').textContent())
          .toBe('No period is closed: changes of any date may be made.');
        const trail = (await readAudit(db, { orgId: tenant.orgId }))
          .filter((r) => r.entityId === tenant.entityId)
          .map((r) => r.action);
        expect(trail).toEqual(['locked', 'configured', 'configured', 'locked']);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }

  test('refuses another entity’s settings to an entity’s owner, and shows nothing', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    page.setDefaultTimeout(5000);
    try {
      await signIn(page, OWNER_KEY, 'ent-books-2');
      await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Could not load: /);
      expect(await page.locator('#lock-now').textContent()).toBe('Not loaded yet.');
    } finally {
      await page.close();
    }
  });
});
