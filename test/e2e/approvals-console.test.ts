// End to end, in headless Chromium: the console's approvals inbox. A maker's large payments wait
// (the policy gives them to an approver); the approver opens the page from the chat with the same
// key, entity and organisation, reads each card in words, approves one (it is carried out),
// rejects one with a reason (nothing happens), edits one's amount (a bad edit is refused in words,
// a good one runs as edited, sending only the changed fields), sees them decided, and grants and
// revokes a standing approval that lets the maker's next payment through and then no more. The
// maker is offered nothing, not even their own write. The page keeps within 1280 and 390 px.
// All services run as processes on the real NATS and a fresh PostgreSQL, with the demo books and
// a scripted model.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTool } from '@munim/demo-books';
import { test } from '@munim/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect } from 'vitest';
import { bearerJson } from '../support/http.ts';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const SHOTS = fileURLToPath(new URL('../../test-results/approvals-console/', import.meta.url));
const tenant = { entityId: 'ent-inbox', orgId: 'org-inbox' };
const KEYS = {
  maker: `maker-${randomBytes(12).toString('hex')}`,
  approver: `approver-${randomBytes(12).toString('hex')}`,
};
type Who = keyof typeof KEYS;
const PEOPLE = [
  `${KEYS.maker}:${tenant.entityId}:${tenant.orgId}:u-maker:maker`,
  `${KEYS.approver}:${tenant.entityId}:${tenant.orgId}:u-approver:approver`,
].join(',');
const POLICY = `
rules:
  - match: { class: payment, minAmount: 100000 }
    approvers: 1
    roles: [approver, owner]
limits:
  maker: { maxAmount: 50000 }
`;

let sys: TestSystem;
let browser: Browser;
let bank = '';
let vendor = '';

test.beforeAll(async ({ database, nats }) => {
  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'munim-inbox-'));
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  sys = await startSystem({
    database,
    nats,
    env: { GATEWAY_API_KEYS: PEOPLE, APPROVAL_POLICY_FILE: join(dir, 'policy.yaml') },
  });
  bank = sys.books.store.accounts.find((a) => a.Code === '1000')?.AccountId ?? '';
  vendor = sys.books.store.contacts.find((c) => c.ContactType === 'VENDOR')?.ContactId ?? '';
  expect(bank && vendor).toBeTruthy();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
});

const api = async (who: Who, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${sys.gatewayUrl}${path}`, {
    method,
    headers: bearerJson(KEYS[who]),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
};
const sent = (reference: string) =>
  sys.books.calls().filter((c) => c.tool === 'create_bill_payment' && c.args.Reference === reference);

/** The maker asks to pay a new bill of `amount` in full and confirms the card: its approval id and what it ended as. */
async function makerPays(amount: number) {
  const made = runTool(sys.books.store, 'create_bill', {
    ContactId: vendor,
    Lines: [{ Description: 'Machinery', Quantity: 1, UnitPrice: amount, TaxRate: 0 }],
    Status: 'AUTHORISED',
  });
  const billId = (made.structuredContent as { BillId: string }).BillId;
  const reference = `UTR${randomBytes(5).toString('hex').toUpperCase()}`;
  const query = `pay bill ${reference}`;
  const args = {
    AccountId: bank,
    Amount: amount,
    Applications: [{ BillId: billId, Amount: amount }],
    Reference: reference,
    PaymentMode: 'NEFT',
  };
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: 'create_bill_payment', arguments: args }] }, { content: 'Paid.' }],
  });
  const conversationId = `conv-${randomUUID()}`;
  const maker = { authorization: `Bearer ${KEYS.maker}` };
  const proposal = await ask(sys.gatewayUrl, { query, conversationId, ...tenant }, maker);
  const card = proposal.events.find((e) => e.event === 'mcq');
  expect(card, JSON.stringify(proposal.events.slice(-3))).toBeDefined();
  const confirmed = await ask(
    sys.gatewayUrl,
    {
      ...tenant,
      conversationId,
      mcqResponse: {
        actionId: String(card?.data.actionId),
        value: 'confirm',
        ...(card?.data.confirm_text ? { typedConfirmation: card.data.confirm_text } : {}),
      },
    },
    maker,
  );
  const status = confirmed.events.at(-1)?.data.status;
  return { approvalId: String(card?.data.actionId), reference, billId, args, status };
}

async function openPage(width = 1280) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.setDefaultTimeout(8000);
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  page.on('dialog', (dialog) => void dialog.accept());
  return { page, errors };
}

async function signIn(page: Page, who: Who) {
  await page.goto(`${sys.gatewayUrl}/approvals.html`);
  await page.getByLabel('API key or token').fill(KEYS[who]);
  await page.getByLabel('Entity', { exact: true }).fill(tenant.entityId);
  await page.getByLabel('Organisation', { exact: true }).fill(tenant.orgId);
  await page.getByRole('button', { name: 'Show approvals' }).click();
}

const cardOf = (page: Page, approvalId: string, list = '#pending-list') =>
  page.locator(`${list} > li[data-approval-id="${approvalId}"]`);

describe('the approvals inbox', () => {
  test('an approver reads each waiting payment in words, approves, rejects, and edits then approves', async () => {
    const approve = await makerPays(200_000);
    const reject = await makerPays(120_000);
    const edit = await makerPays(180_000);
    expect([approve.status, reject.status, edit.status]).toEqual(Array(3).fill('awaiting_approval'));
    const listed = (await api('approver', 'GET', '/v1/approvals')) as {
      approvals: { approvalId: string; summary: string; details: { label: string; value: string }[] }[];
    };

    const { page, errors } = await openPage();
    try {
      // The chat links to the page; the page takes the chat's access.
      await page.goto(sys.gatewayUrl);
      await page.getByRole('link', { name: 'Approvals' }).click();
      await page.waitForURL(`${sys.gatewayUrl}/approvals.html`);
      await signIn(page, 'approver');
      await expect
        .poll(() => page.locator('#status').textContent())
        .toBe('3 approvals wait for your decision in ent-inbox.');
      expect(await page.getByRole('tab', { name: /^Pending/ }).getAttribute('aria-selected')).toBe('true');

      // Each card is the write in words: the summary as its heading, the details, who asked, why.
      for (const waiting of [approve, reject, edit]) {
        const item = listed.approvals.find((a) => a.approvalId === waiting.approvalId);
        const card = cardOf(page, waiting.approvalId);
        expect(item?.details.length).toBeGreaterThan(0);
        expect(await card.getByRole('heading').textContent()).toBe(item?.summary);
        expect(await card.locator('dt').allTextContents()).toEqual(item?.details.map((d) => d.label));
        expect(await card.locator('dd').allTextContents()).toEqual(item?.details.map((d) => d.value));
        const words = await card.textContent();
        expect(words).toContain('Asked by u-maker on ');
        expect(words).toMatch(
          /Why it needs approval: .{10,}\. It needs 1 approval from an approver or an owner\./,
        );
        expect(words).toMatch(/Expires in \d+ (minutes|hours?|days?) \(/);
        // No raw ids as its words: not the approval, the bill, the bank account or the vendor.
        for (const id of [waiting.approvalId, waiting.billId, bank, vendor]) expect(words).not.toContain(id);
      }
      await page.screenshot({ path: `${SHOTS}01-pending.png`, fullPage: true });

      await cardOf(page, approve.approvalId).getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => cardOf(page, approve.approvalId).locator('.outcome').textContent())
        .toBe('Approved: it was carried out.');
      expect(sent(approve.reference)).toHaveLength(1);
      expect(await cardOf(page, approve.approvalId).getByRole('button').count()).toBe(0);

      await cardOf(page, reject.approvalId).getByLabel('Reason (optional)').fill('not this month');
      await cardOf(page, reject.approvalId).getByRole('button', { name: 'Reject' }).click();
      await expect
        .poll(() => cardOf(page, reject.approvalId).locator('.outcome').textContent())
        .toBe('Rejected: nothing was done.');
      expect(sent(reject.reference)).toHaveLength(0);

      // Edit: the call's fields as inputs; a negative amount is refused in words and nothing runs.
      const card = cardOf(page, edit.approvalId);
      expect(await card.getByRole('group', { name: 'Change the call before approving' }).isHidden()).toBe(
        true,
      );
      await card.getByRole('button', { name: 'Edit' }).click();
      expect(await card.getByRole('group', { name: 'Change the call before approving' }).isVisible()).toBe(
        true,
      );
      expect(
        await card.getByRole('button', { name: 'Cancel the changes' }).getAttribute('aria-expanded'),
      ).toBe('true');
      expect(await card.getByLabel('Amount', { exact: true }).inputValue()).toBe('180000');
      expect(await card.getByLabel('Payment mode', { exact: true }).inputValue()).toBe('NEFT');
      await card.getByLabel('Amount', { exact: true }).fill('-5');
      await card.getByRole('button', { name: 'Approve with the changes' }).click();
      const refused = card.getByRole('alert');
      await expect.poll(() => refused.textContent()).toMatch(/^Could not approve: .{10,}/);
      expect(await refused.textContent()).not.toMatch(/VALIDATION_ERROR|\{/);
      expect(sent(edit.reference)).toHaveLength(0);
      const amounts = card.getByLabel('Applications', { exact: true });
      await amounts.fill('[{');
      await card.getByRole('button', { name: 'Approve with the changes' }).click();
      await expect.poll(() => refused.textContent()).toBe('Not sent: Applications is not valid JSON.');

      // A good edit: only the changed fields go with the approval, and the payment runs as edited.
      await card.getByLabel('Amount', { exact: true }).fill('150000');
      await amounts.fill(JSON.stringify([{ BillId: edit.billId, Amount: 150_000 }]));
      const decision = page.waitForRequest((r) => r.url().endsWith(`/v1/approvals/${edit.approvalId}`));
      await card.getByRole('button', { name: 'Approve with the changes' }).click();
      expect((await decision).postDataJSON()).toEqual({
        decision: 'approve',
        args: { Amount: 150_000, Applications: [{ BillId: edit.billId, Amount: 150_000 }] },
        ...tenant,
      });
      await expect.poll(() => card.locator('.outcome').textContent()).toBe('Approved: it was carried out.');
      expect(sent(edit.reference).map((c) => c.args.Amount)).toEqual([150_000]);
      await page.screenshot({ path: `${SHOTS}02-decided-in-place.png`, fullPage: true });

      // The Decided tab shows each as it ended, with the reason and the change.
      await page.getByRole('tab', { name: 'Decided' }).click();
      const decided = (id: string) => cardOf(page, id, '#decided-list');
      await decided(edit.approvalId).waitFor();
      expect(await decided(approve.approvalId).locator('.state').textContent()).toBe(
        'Approved and carried out.',
      );
      expect(await decided(reject.approvalId).locator('.state').textContent()).toBe('Rejected.');
      expect(await decided(reject.approvalId).textContent()).toContain('u-approver rejected on ');
      expect(await decided(reject.approvalId).textContent()).toContain('“not this month”');
      expect(await decided(edit.approvalId).textContent()).toContain('Amount 180000 → 150000');
      expect(await page.locator('#pending').isHidden()).toBe(true);

      expect(await page.getByRole('tab', { name: /^Pending/ }).textContent()).toBe('Pending (0)');
      // Back on Pending, nothing is left to decide.
      await page.getByRole('tab', { name: /^Pending/ }).click();
      await page.locator('#no-pending').waitFor();
      expect(await page.locator('#pending-list > li').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

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

  test('a maker is offered nothing to decide, not even their own waiting write, and may not grant', async () => {
    const mine = await makerPays(160_000);
    expect(mine.status).toBe('awaiting_approval');
    const { page, errors } = await openPage();
    try {
      await signIn(page, 'maker');
      await page.locator('#no-pending').waitFor();
      expect(await page.locator('#status').textContent()).toBe(
        'Nothing waits for your decision in ent-inbox.',
      );
      expect(await cardOf(page, mine.approvalId).count()).toBe(0);
      // The approver is offered it.
      const theirs = (await api('approver', 'GET', '/v1/approvals')) as {
        approvals: { approvalId: string }[];
      };
      expect(theirs.approvals.map((a) => a.approvalId)).toContain(mine.approvalId);

      await page.getByRole('tab', { name: 'Standing approvals' }).click();
      await page.getByRole('button', { name: 'Grant' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toMatch(/^Could not grant: Granting a standing approval .* needs the approver or owner role/);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('the approvals page’s layout', () => {
  test('keeps within a 1280 px desktop and a 390 px phone; the grants table scrolls inside its panel', async () => {
    const pending = (await api('approver', 'GET', '/v1/approvals')) as { approvals: unknown[] };
    expect(pending.approvals.length).toBeGreaterThan(0);
    for (const width of [1280, 390]) {
      const { page, errors } = await openPage(width);
      try {
        const fits = () =>
          page.evaluate(() => {
            const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
              .document;
            return doc.documentElement.scrollWidth;
          });
        await page.goto(sys.gatewayUrl);
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
