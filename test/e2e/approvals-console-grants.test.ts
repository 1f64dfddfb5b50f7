// End to end, in headless Chromium: standing approvals on the console's approvals page, granted
// and revoked by an approver (the grant lets the maker's next payment through, the revocation
// stops the one after), and the page's layout at a 1280 px desktop and a 390 px phone: nothing
// wider than the viewport, the grants' table scrolling inside its panel. All services run as
// processes on the real NATS and a fresh PostgreSQL, with the demo books and a scripted model.
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import {
  api,
  gatewayUrl,
  makerPays,
  openPage,
  SHOTS,
  sent,
  signIn,
  startInbox,
  stopInbox,
} from '../support/approvals-inbox.ts';

test.beforeAll(async ({ database, nats }) => {
  await startInbox({ database, nats });
});

afterAll(async () => {
  await stopInbox();
});

describe('standing approvals on the page', () => {
  test('a standing approval granted on the page lets one payment through; revoked, the next waits', async () => {
    const { page, errors } = await openPage();
    try {
      await signIn(page, 'approver');
      await page.getByRole('tab', { name: 'Standing approvals' }).click();
      await page.locator('#no-grants').waitFor();
      await page.getByLabel('Kind of write').selectOption('payment');
      await page.getByLabel('Each write up to').fill('300000');
      await page.getByLabel('All writes together up to').fill('500000');
      await page.getByLabel('Uses').fill('2');
      await page.getByRole('button', { name: 'Grant' }).click();
      const row = page.locator('#grants tbody tr').first();
      await row.waitFor();
      expect(await row.locator('th, td').allTextContents()).toEqual([
        'payments',
        'any party',
        '300000',
        '0 used of 500000',
        '0 of 2',
        expect.any(String),
        'u-approver',
        'active',
        'Revoke',
      ]);
      const { grants } = (await api('approver', 'GET', '/v1/approvals/standing')) as {
        grants: { grantId: string; class: string; maxAmount: number; uses: number; expiresAt: string }[];
      };
      expect(grants).toHaveLength(1);
      expect(grants[0]).toMatchObject({ class: 'payment', maxAmount: 300_000, uses: 2 });
      // The expiry given by default: a week from now, to the minute.
      expect(Math.abs(Date.parse(grants[0]?.expiresAt ?? '') - Date.now() - 7 * 86_400_000)).toBeLessThan(
        120_000,
      );

      const through = await makerPays(210_000);
      expect(through.status).toBe('answered');
      expect(sent(through.reference)).toHaveLength(1);
      await page.getByRole('tab', { name: 'Standing approvals' }).click();
      await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('1 of 2');

      await row.getByRole('button', { name: 'Revoke the standing approval for payments' }).click();
      await expect.poll(() => row.getAttribute('data-status')).toBe('revoked');
      expect(await row.getByRole('button').count()).toBe(0);
      const waits = await makerPays(210_000);
      expect(waits.status).toBe('awaiting_approval');
      expect(sent(waits.reference)).toHaveLength(0);
      await page.screenshot({ path: `${SHOTS}03-standing.png`, fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('the approvals page’s layout', () => {
  test('keeps within a 1280 px desktop and a 390 px phone; the grants table scrolls inside its panel', async () => {
    // Something waits, something was decided (a rejection), and a grant is listed.
    const waits = await makerPays(110_000);
    const rejected = await makerPays(140_000);
    expect([waits.status, rejected.status]).toEqual(['awaiting_approval', 'awaiting_approval']);
    await api('approver', 'POST', `/v1/approvals/${rejected.approvalId}`, { decision: 'reject' });
    const granted = (await api('approver', 'POST', '/v1/approvals/standing', {
      tool: 'create_bill_payment',
      party: 'Mehta Electricals Wholesale',
      maxAmount: 1,
      uses: 1,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    })) as { grants: unknown[] };
    expect(granted.grants).toHaveLength(1);
    for (const width of [1280, 390]) {
      const { page, errors } = await openPage(width);
      try {
        const fits = () =>
          page.evaluate(() => {
            const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
              .document;
            return doc.documentElement.scrollWidth;
          });
        await page.goto(gatewayUrl());
        expect(await fits(), `the chat at ${width}px`).toBeLessThanOrEqual(width);
        await signIn(page, 'approver');
        await page.locator('#pending-list > li').first().waitFor();
        await page.locator('#pending-list > li').first().getByRole('button', { name: 'Edit' }).click();
        expect(await fits(), `pending at ${width}px`).toBeLessThanOrEqual(width);
        await page.screenshot({ path: `${SHOTS}10-pending-${width}.png`, fullPage: true });
        await page.getByRole('tab', { name: 'Decided' }).click();
        await page.locator('#decided-list > li').first().waitFor();
        expect(await fits(), `decided at ${width}px`).toBeLessThanOrEqual(width);
        await page.getByRole('tab', { name: 'Standing approvals' }).click();
        await page.locator('#grants tbody tr').first().waitFor();
        expect(await fits(), `standing at ${width}px`).toBeLessThanOrEqual(width);
        const table = await page.locator('#grants').evaluate((grants) => {
          const wrapper = grants.parentElement as unknown as {
            scrollWidth: number;
            clientWidth: number;
            getBoundingClientRect(): { right: number };
          };
          const view = grants.ownerDocument.defaultView;
          return {
            scroll: wrapper.scrollWidth,
            client: wrapper.clientWidth,
            right: wrapper.getBoundingClientRect().right,
            overflowX: view?.getComputedStyle(grants.parentElement as never).overflowX,
          };
        });
        expect(table.overflowX).toBe('auto');
        expect(table.right).toBeLessThanOrEqual(width);
        if (width === 390)
          expect(table.scroll, 'the table is wider than the phone').toBeGreaterThan(table.client);
        await page.screenshot({ path: `${SHOTS}11-standing-${width}.png`, fullPage: true });
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });
});
