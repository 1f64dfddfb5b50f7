// The system and browser the console's approvals inbox tests drive: all services as processes
// with a policy that gives payments from ₹1,00,000 to one approver and from ₹10,00,000 to two (and
// a bill's update to one), people as GATEWAY_API_KEYS entries (a maker and two approvers), the
// demo books and a scripted model; and headless Chromium. `makerAsks` has the maker ask for a
// write and confirm its card; `makerPays` does it for a payment of a new bill.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTool } from '@munim/demo-books';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { bearerJson } from './http.ts';
import { ask } from './sse.ts';
import { startSystem, type TestSystem } from './stack.ts';

export const SHOTS = fileURLToPath(new URL('../../test-results/approvals-console/', import.meta.url));
export const tenant = { entityId: 'ent-inbox', orgId: 'org-inbox' };
const KEYS = {
  maker: `maker-${randomBytes(12).toString('hex')}`,
  approver: `approver-${randomBytes(12).toString('hex')}`,
  approver2: `approver2-${randomBytes(12).toString('hex')}`,
};
type Who = keyof typeof KEYS;
const PEOPLE = [
  `${KEYS.maker}:${tenant.entityId}:${tenant.orgId}:u-maker:maker`,
  `${KEYS.approver}:${tenant.entityId}:${tenant.orgId}:u-approver:approver`,
  `${KEYS.approver2}:${tenant.entityId}:${tenant.orgId}:u-approver2:approver`,
].join(',');
const POLICY = `
rules:
  - match: { class: payment, minAmount: 100000 }
    approvers: 1
    roles: [approver, owner]
  - match: { class: payment, minAmount: 1000000 }
    approvers: 2
    roles: [approver, owner]
  - match: { tool: update_bill }
    approvers: 1
    roles: [approver]
limits:
  maker: { maxAmount: 50000 }
`;

let sys: TestSystem;
let browser: Browser;
/** The demo books' bank account and a vendor, the payments' ids. */
export const books = { bank: '', vendor: '' };

/** Starts the system and the browser (in a test file's `beforeAll`); `stopInbox` stops them. */
export async function startInbox(fixtures: { database: { url: string }; nats: { prefix: string } }) {
  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'munim-inbox-'));
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  sys = await startSystem({
    ...fixtures,
    env: { GATEWAY_API_KEYS: PEOPLE, APPROVAL_POLICY_FILE: join(dir, 'policy.yaml') },
  });
  books.bank = sys.books.store.accounts.find((a) => a.Code === '1000')?.AccountId ?? '';
  books.vendor = sys.books.store.contacts.find((c) => c.ContactType === 'VENDOR')?.ContactId ?? '';
  expect(books.bank && books.vendor).toBeTruthy();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
}

export async function stopInbox() {
  await browser?.close();
  await sys?.stop();
}

export const gatewayUrl = () => sys.gatewayUrl;

/** A call to the HTTP API as one of the people: its JSON answer. */
export async function api(who: Who, method: string, path: string, body?: unknown) {
  const response = await fetch(`${sys.gatewayUrl}${path}`, {
    method,
    headers: bearerJson(KEYS[who]),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

/** The payments with this reference the books were asked to record. */
export const sent = (reference: string) =>
  sys.books.calls().filter((c) => c.tool === 'create_bill_payment' && c.args.Reference === reference);

/** A new bill of `amount` (before tax) from the vendor: its id. */
export function newBill(amount: number) {
  const made = runTool(sys.books.store, 'create_bill', {
    ContactId: books.vendor,
    Lines: [{ Description: 'Machinery', Quantity: 1, UnitPrice: amount, TaxRate: 0 }],
    Status: 'AUTHORISED',
  });
  return (made.structuredContent as { BillId: string }).BillId;
}

/** The maker asks for a write (the model calls `tool` with `args`) and confirms its card: the approval id and how it ended. */
export async function makerAsks(query: string, tool: string, args: Record<string, unknown>) {
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: tool, arguments: args }] }, { content: 'Done.' }],
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
  return { approvalId: String(card?.data.actionId), status: confirmed.events.at(-1)?.data.status };
}

/** The maker asks to pay a new bill of `amount` in full and confirms the card. */
export async function makerPays(amount: number) {
  const billId = newBill(amount);
  const reference = `UTR${randomBytes(5).toString('hex').toUpperCase()}`;
  const args = {
    AccountId: books.bank,
    Amount: amount,
    Applications: [{ BillId: billId, Amount: amount }],
    Reference: reference,
    PaymentMode: 'NEFT',
  };
  const asked = await makerAsks(`pay bill ${reference}`, 'create_bill_payment', args);
  return { ...asked, reference, billId, args };
}

/** Takes a bill out of the books, as if someone deleted it there. */
export function dropBill(billId: string) {
  const bills = sys.books.store.bills;
  bills.splice(
    bills.findIndex((b) => b.BillId === billId),
    1,
  );
}

/** A new page of `width` px: its errors are collected, and dialogs accepted. */
export async function openPage(width = 1280) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.setDefaultTimeout(8000);
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  page.on('dialog', (dialog) => void dialog.accept());
  return { page, errors };
}

/** Opens the approvals page as one of the people. */
export async function signIn(page: Page, who: Who) {
  await page.goto(`${sys.gatewayUrl}/approvals.html`);
  await page.getByLabel('API key or token').fill(KEYS[who]);
  await page.getByLabel('Entity', { exact: true }).fill(tenant.entityId);
  await page.getByLabel('Organisation', { exact: true }).fill(tenant.orgId);
  await page.getByRole('button', { name: 'Show approvals' }).click();
}

/** The card of an approval in a list of the page. */
export const cardOf = (page: Page, approvalId: string, list = '#pending-list') =>
  page.locator(`${list} > li[data-approval-id="${approvalId}"]`);
