import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeXlsx } from '@munim/attachments/testing';
import type { Bus } from '@munim/bus';
import type { AgentEvent, EventPayload, Message, QuerySubmitted } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { ANSWER, EDIT_MCQ, INVOICE_ID, MCQ } from './console-fixtures.ts';
import { completeEvent, gate, startGateway } from './helpers.ts';

const SHOTS = fileURLToPath(new URL('../../../test-results/gateway-console/', import.meta.url));
let testBus: FixtureNats;
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let browser: Browser;
let page: Page;
let stopBackend: () => Promise<void>;
let attachmentsDir: string;
const received: Message<QuerySubmitted>[] = [];
const streaming = gate();
/** The replacement of a streamed answer waits for the test, and `complete` waits after it. */
const replacing = gate();
const replaced = gate();

/** Plays router and agent step by step, and stores the conversation as the agent would. */
async function startBackend(): Promise<() => Promise<void>> {
  const router = await testBus.bus('router');
  const agent = await testBus.bus('agent');
  let chatNumber = 0;
  const emit = (bus: Bus, message: Message<QuerySubmitted>, event: AgentEvent) => bus.emit(message, event);
  const consumer = await router.consume(
    'querySubmitted',
    async (message) => {
      received.push(message);
      await router.open(message);
      const { query, mcqResponse } = message.data;
      await emit(agent, message, { type: 'understanding_started', payload: { query } });
      await emit(router, message, {
        type: 'route_classified',
        payload: { path: 'llm', category: 'unified', confidence: 0.92 },
      });
      let response: string;
      let status: EventPayload<'complete'>['status'] = 'answered';
      if (mcqResponse) {
        await emit(agent, message, {
          type: 'executing_tool',
          payload: { tool: 'create_payment', args: { Amount: 5000 } },
        });
        await emit(agent, message, {
          type: 'tool_result',
          payload: {
            tool: 'create_payment',
            success: true,
            result: { PaymentId: 'PAY-001' },
            duration_ms: 41,
          },
        });
        response = 'Payment of ₹5000 from Acme Corp recorded (PAY-001).';
      } else if (query.startsWith('change')) {
        await emit(agent, message, { type: 'mcq', payload: EDIT_MCQ });
        response = EDIT_MCQ.question;
        status = 'awaiting_confirmation';
      } else if (query.startsWith('record')) {
        await emit(agent, message, {
          type: 'write_validation',
          payload: {
            tool: 'create_payment',
            status: 'passed',
            fields_validated: ['Customer', 'Amount'],
            duration_ms: 2,
          },
        });
        await emit(agent, message, { type: 'mcq', payload: MCQ });
        response = 'Please confirm the payment.';
        status = 'awaiting_confirmation';
      } else if (query.startsWith('claim')) {
        await emit(agent, message, {
          type: 'response_chunk',
          payload: { text: 'Payment of ₹500 recorded ' },
        });
        await replacing.promise;
        response = 'Nothing was recorded yet.';
        await emit(agent, message, { type: 'response_replace', payload: { text: response } });
        await replaced.promise;
      } else {
        await emit(agent, message, {
          type: 'executing_tool',
          payload: { tool: 'list_invoices', args: { status: 'overdue' } },
        });
        await emit(agent, message, {
          type: 'tool_result',
          payload: { tool: 'list_invoices', success: true, result: { count: 2 }, duration_ms: 120 },
        });
        await emit(agent, message, { type: 'response_chunk', payload: { text: ANSWER[0] ?? '' } });
        // The test looks at the half-streamed answer before letting the rest through.
        await streaming.promise;
        for (const text of ANSWER.slice(1))
          await emit(agent, message, { type: 'response_chunk', payload: { text } });
        response = ANSWER.join('');
      }
      const existing = await db
        .selectFrom('unified_conversations')
        .select(['messages'])
        .where('id', '=', message.conversationId)
        .executeTakeFirst();
      const messages = [
        ...(existing?.messages ?? []),
        ...(query ? [{ role: 'user' as const, content: query }] : []),
        { role: 'assistant' as const, content: response, requestId: message.requestId },
      ];
      if (existing) {
        await db
          .updateTable('unified_conversations')
          .set({
            messages: JSON.stringify(messages),
            message_count: messages.length,
            last_message_preview: response.slice(0, 80),
          })
          .where('id', '=', message.conversationId)
          .execute();
      } else {
        chatNumber += 1;
        await db
          .insertInto('unified_conversations')
          .values({
            id: message.conversationId,
            entity_id: message.entityId,
            org_id: message.orgId,
            chat_number: chatNumber,
            chat_name: query.slice(0, 40),
            messages: JSON.stringify(messages),
            message_count: messages.length,
            last_message_preview: response.slice(0, 80),
          })
          .execute();
      }
      await emit(agent, message, completeEvent(query, response, status));
    },
    { durable: 'router', maxDeliver: 1 },
  );
  return () => consumer.stop();
}

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  await mkdir(SHOTS, { recursive: true });
  attachmentsDir = await mkdtemp(join(tmpdir(), 'munim-console-'));
  ({ gateway, url } = await startGateway(testBus, { ATTACHMENTS_DIR: attachmentsDir }, db));
  stopBackend = await startBackend();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (error) => {
    throw error;
  });
});

afterAll(async () => {
  try {
    streaming.open();
    replacing.open();
    replaced.open();
    await browser?.close();
    await stopBackend?.();
    await gateway?.stop();
  } finally {
    if (attachmentsDir) await rm(attachmentsDir, { recursive: true, force: true });
  }
});

describe('web console', () => {
  test('is served at / with a strict content security policy', async () => {
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await fetch(`${url}/vendor/marked.esm.js`)).status).toBe(200);
    expect((await fetch(`${url}/vendor/nope.js`)).status).toBe(404);
  });

  test('streams an answer with a markdown table, a params card and a clarification block', async () => {
    await page.goto(url);
    await page.getByLabel('Your question').fill('show overdue invoices');
    await page.getByLabel('Your question').press('Enter');
    const answer = page.locator('article.msg.assistant').first();
    await answer.getByText('Here are the overdue invoices').waitFor();
    // Half-way: the first chunk is shown while the answer is still streaming.
    expect(await answer.getAttribute('aria-busy')).toBe('true');
    expect(await answer.locator('table').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}01-streaming.png` });
    streaming.open();
    await answer.locator('.meta button.debug').waitFor();
    expect(await answer.locator('table td').allTextContents()).toEqual([
      'INV-1',
      'Acme Corp',
      '₹12,000',
      'INV-2',
      'Globex',
      '₹3,500',
    ]);
    await expect.poll(() => answer.locator('.card.params h3').textContent()).toBe('Send reminders');
    expect(await answer.locator('.card.params .pending dt').textContent()).toBe('Channel');
    expect(await answer.getByRole('radio').count()).toBe(2);
    expect(await answer.locator('pre').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}02-answer.png` });
  });

  test('records thumbs up for the answer', async () => {
    const answer = page.locator('article.msg.assistant').first();
    await answer.getByRole('button', { name: 'Good answer' }).click();
    await expect
      .poll(() => answer.getByRole('button', { name: 'Good answer' }).getAttribute('aria-pressed'))
      .toBe('true');
    const rows = await db.selectFrom('feedback_log').select(['signal', 'score', 'request_id']).execute();
    expect(rows).toEqual([
      { signal: 'thumbs_up', score: 1, request_id: await answer.getAttribute('data-request-id') },
    ]);
  });

  test('confirms an MCQ only after the confirmation text is typed', async () => {
    await page.getByLabel('Your question').fill('record ₹5000 payment from Acme Corp');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const card = page.locator('.card.mcq');
    await card.waitFor();
    const confirm = card.getByRole('button', { name: 'Yes, record it' });
    expect(await confirm.isDisabled()).toBe(true);
    await card.locator('input.typed-input').fill('RECORD');
    expect(await confirm.isDisabled()).toBe(false);
    await page.screenshot({ path: `${SHOTS}03-mcq.png` });
    await confirm.click();
    await page.locator('#chat').getByText('Payment of ₹5000 from Acme Corp recorded (PAY-001).').waitFor();
    const answered = received.at(-1);
    expect(answered?.data.mcqResponse).toEqual({
      actionId: 'act-77',
      value: 'confirm',
      typedConfirmation: 'RECORD',
    });
    expect(answered?.conversationId).toBe(received[0]?.conversationId);
    await page.screenshot({ path: `${SHOTS}04-confirmed.png` });
  });

  test('shows a confirmation in words: the invoice, customer, amount, date and the change, no ids', async () => {
    await page.getByLabel('Your question').fill('change the due date of INV-0042 to 28 Feb');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const card = page.locator('.card.mcq').last();
    await card.getByText('INV-0042 of Acme Corp', { exact: false }).first().waitFor();
    const facts = await card
      .locator('dl:not(.changes) dt')
      .evaluateAll((dts) => dts.map((dt) => `${dt.textContent}: ${dt.nextElementSibling?.textContent}`));
    expect(facts).toEqual([
      'Action: update the invoice',
      'Invoice: INV-0042',
      'Customer: Acme Corp',
      'Amount: ₹1,18,000.00',
      'Date: 15/01/2026',
    ]);
    expect(await card.locator('dl.changes').textContent()).toBe('Due date14/02/2026 → 28/02/2026');
    expect(await card.locator('h3').textContent()).toBe(
      'Confirm: update the invoice INV-0042 of Acme Corp (₹1,18,000.00, dated 15/01/2026) with these changes?',
    );
    const shown = (await card.textContent()) ?? '';
    expect(shown).not.toContain(INVOICE_ID);
    expect(shown).not.toContain('update_invoice');
    expect(shown).not.toContain('InvoiceId');
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}04b-mcq-in-words.png` });
  });

  test('opens the pipeline debugger for a request, live and replayed', async () => {
    const first = page.locator('article.msg.assistant').first();
    await first.getByRole('button', { name: 'Debug' }).click();
    const steps = page.locator('#steps .step');
    // The debugger shows the steps as its stream brings them: read them once the last has come.
    const typesShown = () =>
      steps.evaluateAll((items) => items.map((item) => item.getAttribute('data-type')));
    await expect.poll(async () => (await typesShown()).at(-1), { timeout: 10_000 }).toBe('complete');
    const types = await typesShown();
    expect(types.slice(0, 5)).toEqual([
      'connected',
      'understanding_started',
      'route_classified',
      'executing_tool',
      'tool_result',
    ]);
    expect(types.at(-1)).toBe('complete');
    const toolResult = page.locator('#steps .step[data-type="tool_result"]');
    expect(await toolResult.getAttribute('class')).toContain('pass');
    expect(await toolResult.locator('.duration').textContent()).toBe('Duration: 120 ms');
    await page.screenshot({ path: `${SHOTS}05-debugger.png` });

    // A fresh page knows nothing of the request: the debugger replays it from the gateway.
    await page.reload();
    const conversation = page.locator('#conversations .open').first();
    await conversation.waitFor();
    expect(await conversation.textContent()).toContain('#MJ-0001');
    await conversation.click();
    await page.locator('article.msg.assistant table').first().waitFor();
    await page.locator('article.msg.assistant').first().getByRole('button', { name: 'Debug' }).click();
    await expect.poll(() => page.locator('#steps .step').count()).toBe(types.length);
    expect(await page.locator('#steps .step[data-type="tool_result"] .duration').textContent()).toBe(
      'Duration: 120 ms',
    );
    // The chat's stream had the tool's outcome only; the debugger asked for its result.
    expect(await page.locator('#steps .step[data-type="tool_result"]').textContent()).toContain(
      '{"count":2}',
    );
    await page.screenshot({ path: `${SHOTS}06-replayed.png` });
  });

  test('attaches a file: a chip, the suggested message, and its id sent with the question', async () => {
    const sheet = await makeXlsx();
    await page
      .locator('#attach')
      .setInputFiles({ name: sheet.name, mimeType: sheet.type, buffer: sheet.bytes });
    const chip = page.locator('#attachments .chip');
    await chip.getByText('sales.xlsx · spreadsheet').waitFor();
    expect(await page.getByLabel('Your question').inputValue()).toBe(
      'Review the 3 rows in sales.xlsx and record them as invoices?',
    );
    const id = await chip.getAttribute('data-attachment-id');
    const stored = await db
      .selectFrom('attachments')
      .select(['id', 'conversation_id'])
      .executeTakeFirstOrThrow();
    expect(stored.id).toBe(id);
    await page.screenshot({ path: `${SHOTS}06-attached.png` });
    const before = received.length;
    await page.getByLabel('Your question').press('Enter');
    await expect.poll(() => received.length).toBe(before + 1);
    expect(received.at(-1)?.data).toMatchObject({
      query: 'Review the 3 rows in sales.xlsx and record them as invoices?',
      attachmentIds: [id],
    });
    // Sent once: the chip is gone and the question shows the file.
    expect(await chip.count()).toBe(0);
    await page.locator('.msg.user .chip').getByText('sales.xlsx', { exact: true }).waitFor();
    await page.locator('article.msg.assistant[aria-busy="false"]').last().waitFor();

    // A file the gateway refuses says why, and nothing is attached.
    await page.locator('#attach').setInputFiles({
      name: 'tool.exe',
      mimeType: 'application/x-msdownload',
      buffer: Buffer.from('MZ\x90\x00'),
    });
    await page
      .locator('#attachments .chip.error')
      .getByText(/^file: /)
      .waitFor();
    expect(await page.locator('#attachments .chip[data-attachment-id]').count()).toBe(0);
  });

  test('starts a new chat and deletes a conversation from the sidebar', async () => {
    await page.getByRole('button', { name: '+ New chat' }).click();
    expect(await page.locator('article.msg').count()).toBe(0);
    await page.getByRole('button', { name: 'Delete #MJ-0001' }).click();
    await page.getByText('No conversations yet.').waitFor();
    const row = await db.selectFrom('unified_conversations').select('is_deleted').executeTakeFirstOrThrow();
    expect(row.is_deleted).toBe(true);
  });

  test('shows the replacement of a streamed answer as soon as it comes', async () => {
    await page.getByLabel('Your question').fill('claim the rent was paid');
    await page.getByLabel('Your question').press('Enter');
    const message = page.locator('article.msg.assistant').last();
    await message.getByText('Payment of ₹500 recorded').waitFor();
    replacing.open();
    await message.getByText('Nothing was recorded yet.').waitFor();
    // Replaced before `complete`: the request is still running.
    expect(await message.getAttribute('aria-busy')).toBe('true');
    expect((await message.locator('.answer').textContent())?.trim()).toBe('Nothing was recorded yet.');
    await page.screenshot({ path: `${SHOTS}08-replaced.png` });
    replaced.open();
    await message.locator('.meta button.debug').waitFor();
    expect((await message.locator('.answer').textContent())?.trim()).toBe('Nothing was recorded yet.');
  });
});
