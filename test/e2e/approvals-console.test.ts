// End to end, in headless Chromium: the console's approvals inbox. A maker's large payments wait
// (the policy gives them to approvers); an approver opens the page from the chat with the same
// key, entity and organisation, reads each card in words, approves one (it is carried out),
// rejects one with a reason (nothing happens), edits one's amount (a bad edit is refused in words,
// a good one runs as edited, sending only the changed fields) and sees them decided. A payment
// for two approvers waits after the first; a card decided by someone else meanwhile says so; a
// write the books refuse after its approval is said to have failed, with their reason. The
// maker is offered nothing, not even their own write. All services run as processes on the real
// NATS and a fresh PostgreSQL, with the demo books and a scripted model.
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import {
  api,
  books,
  cardOf,
  dropBill,
  gatewayUrl,
  makerAsks,
  makerPays,
  newBill,
  openPage,
  SHOTS,
  sent,
  signIn,
  startInbox,
  stopInbox,
  tenant,
} from '../support/approvals-inbox.ts';

test.beforeAll(async ({ database, nats }) => {
  await startInbox({ database, nats });
});

afterAll(async () => {
  await stopInbox();
});

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
      await page.goto(gatewayUrl());
      await page.getByRole('link', { name: 'Approvals' }).click();
      await page.waitForURL(`${gatewayUrl()}/approvals.html`);
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
        for (const id of [waiting.approvalId, waiting.billId, books.bank, books.vendor])
          expect(words).not.toContain(id);
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

  test('two approvers: the first is told it still waits, the second carries it out; a card decided meanwhile says so', async () => {
    const big = await makerPays(1_200_000);
    const raced = await makerPays(130_000);
    expect([big.status, raced.status]).toEqual(['awaiting_approval', 'awaiting_approval']);
    const first = await openPage();
    const second = await openPage();
    try {
      await signIn(first.page, 'approver');
      await signIn(second.page, 'approver2');
      const mine = cardOf(first.page, big.approvalId);
      expect(await mine.textContent()).toContain('It needs 2 approvals from an approver or an owner.');
      await mine.getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => mine.locator('.outcome').textContent())
        .toBe('Your approval is recorded; it still waits for another approver.');
      expect(sent(big.reference)).toHaveLength(0);
      // Not offered to the same person twice.
      await signIn(first.page, 'approver');
      await first.page.locator('#pending-list > li').first().waitFor();
      expect(await cardOf(first.page, big.approvalId).count()).toBe(0);

      // The second approver's page was loaded before: reloaded, it shows the first decision.
      await second.page.getByRole('button', { name: 'Show approvals' }).click();
      const theirs = cardOf(second.page, big.approvalId);
      await expect
        .poll(() => theirs.getByRole('list', { name: 'Decisions so far' }).textContent())
        .toMatch(/^u-approver approved on /);
      await theirs.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => theirs.locator('.outcome').textContent()).toBe('Approved: it was carried out.');
      expect(sent(big.reference)).toHaveLength(1);

      // Decided by the first approver while the second one's card was open: the second is told why.
      await cardOf(first.page, raced.approvalId).getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => cardOf(first.page, raced.approvalId).locator('.outcome').textContent())
        .toBe('Approved: it was carried out.');
      const late = cardOf(second.page, raced.approvalId);
      await late.getByRole('button', { name: 'Reject' }).click();
      await expect
        .poll(() => late.getByRole('alert').textContent(), { timeout: 10_000 })
        .toMatch(/^Could not reject: .{10,}/);
      expect(await late.getByRole('button').count()).toBe(0);
      expect(sent(raced.reference)).toHaveLength(1);
      expect([...first.errors, ...second.errors]).toEqual([]);
    } finally {
      await first.page.close();
      await second.page.close();
    }
  });

  test('a write the books refuse after it was approved is said to have failed, and why', async () => {
    const billId = newBill(40_000);
    const asked = await makerAsks(`move the due date of bill ${billId.slice(0, 8)}`, 'update_bill', {
      BillId: billId,
      DueDate: '2026-12-31',
    });
    expect(asked.status).toBe('awaiting_approval');
    dropBill(billId);
    const { page, errors } = await openPage();
    try {
      await signIn(page, 'approver');
      const card = cardOf(page, asked.approvalId);
      await card.getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => card.getByRole('alert').textContent(), { timeout: 10_000 })
        .toMatch(/^Approved, but it failed: .*not found/i);
      expect(await card.locator('.outcome').getAttribute('data-status')).toBe('failed');
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

      // The list the tab loads answers after the refusal (as on a loaded gateway): its summary must
      // not hide the refusal.
      let listed = 0;
      await page.route('**/v1/approvals/standing?*', async (route) => {
        if (route.request().method() !== 'GET') return route.continue();
        await new Promise((r) => setTimeout(r, 1_500));
        listed += 1;
        return route.continue();
      });
      await page.getByRole('tab', { name: 'Standing approvals' }).click();
      await page.getByRole('button', { name: 'Grant' }).click();
      // The refusal comes back from the gateway: on a loaded machine it takes a moment to show.
      await page.getByRole('alert').waitFor({ timeout: 20_000 });
      await expect.poll(() => listed, { timeout: 10_000 }).toBe(1);
      // The late list is shown (the maker has none), and the refusal is still what the page says.
      await page.locator('#no-grants').waitFor({ timeout: 10_000 });
      await expect
        .poll(() => page.getByRole('alert').textContent(), { timeout: 10_000 })
        .toMatch(/^Could not grant: Granting a standing approval .* needs the approver or owner role/);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
