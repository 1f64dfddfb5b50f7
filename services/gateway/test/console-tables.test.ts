// Wide tables in the web console: a table with more columns than the chat has
// room for scrolls sideways inside its own wrapper; the answer's card and the page keep the
// viewport's width. The gateway serves the console on a real NATS slice and database; a fake
// router and agent answer with the table; the console runs in headless Chromium.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { completeEvent, fakeBackend, startGateway } from './helpers.ts';

const SHOTS = fileURLToPath(new URL('../../../test-results/gateway-console/', import.meta.url));
const COLUMNS = 16;
const ROWS = 5;
const cell = (row: number, column: number) =>
  `INV-2026-${String(row).padStart(4, '0')}-COL${column}-RECEIVABLE`;
/** A markdown table whose cells do not wrap (no spaces): far wider than any viewport. */
const WIDE_TABLE = [
  'Here is everything outstanding:\n\n',
  `| ${Array.from({ length: COLUMNS }, (_, c) => `Column_${c + 1}_outstanding_amount`).join(' | ')} |\n`,
  `|${' --- |'.repeat(COLUMNS)}\n`,
  ...Array.from(
    { length: ROWS },
    (_, r) => `| ${Array.from({ length: COLUMNS }, (_, c) => cell(r + 1, c + 1)).join(' | ')} |\n`,
  ),
].join('');

let testBus: FixtureNats;
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let browser: Browser;
let stopBackend: () => Promise<void>;

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  await mkdir(SHOTS, { recursive: true });
  ({ gateway, url } = await startGateway(testBus, {}, db));
  const backend = await fakeBackend(testBus, (message) => [
    { type: 'response_chunk', payload: { text: WIDE_TABLE } },
    completeEvent(message.data.query, WIDE_TABLE),
  ]);
  stopBackend = backend.stop;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  await stopBackend?.();
  await gateway?.stop();
});

describe('a wide table in the console', () => {
  test.each([
    ['a desktop', 1280, 800],
    ['a phone', 390, 800],
  ])('scrolls inside its card on %s (%ipx wide)', async (name, width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    try {
      page.on('pageerror', (error) => {
        throw error;
      });
      await page.goto(url);
      await page.getByLabel('Your question').fill('show everything outstanding');
      await page.getByLabel('Your question').press('Enter');
      const card = page.locator('article.msg.assistant').last();
      await card.locator('.meta button.debug').waitFor();
      expect(await card.locator('table th').count()).toBe(COLUMNS);

      const sizes = await card.evaluate((article) => {
        const table = article.querySelector('table');
        const wrapper = table?.parentElement;
        if (!table || !wrapper) throw new Error('the answer has no table');
        // The page's globals, reached from the element (the tests are typed without the DOM library).
        const doc = article.ownerDocument;
        const view = doc.defaultView;
        if (!view) throw new Error('the card is in no window');
        const chat = doc.querySelector('#chat');
        wrapper.scrollLeft = 200;
        return {
          viewport: view.innerWidth,
          page: doc.documentElement.scrollWidth,
          chat: chat ? { scroll: chat.scrollWidth, client: chat.clientWidth } : null,
          card: {
            right: article.getBoundingClientRect().right,
            scroll: article.scrollWidth,
            client: article.clientWidth,
          },
          table: table.getBoundingClientRect().width,
          wrapper: {
            right: wrapper.getBoundingClientRect().right,
            scroll: wrapper.scrollWidth,
            client: wrapper.clientWidth,
            scrolled: wrapper.scrollLeft,
            overflowX: view.getComputedStyle(wrapper).overflowX,
          },
        };
      });
      await page.screenshot({ path: `${SHOTS}09-wide-table-${width}.png` });

      // The table is wider than the viewport: the test would prove nothing otherwise.
      expect(sizes.table, name).toBeGreaterThan(width);
      // Neither the page, the chat nor the card grows past the viewport or spills out sideways.
      expect(sizes.page, 'the page is wider than the viewport').toBeLessThanOrEqual(sizes.viewport);
      expect(sizes.chat?.scroll, 'the chat scrolls sideways').toBe(sizes.chat?.client);
      expect(sizes.card.right, 'the card ends past the viewport').toBeLessThanOrEqual(sizes.viewport);
      expect(sizes.card.scroll, 'the table spills out of its card').toBe(sizes.card.client);
      // The table's wrapper keeps inside the card and scrolls sideways.
      expect(sizes.wrapper.overflowX).toBe('auto');
      expect(sizes.wrapper.right).toBeLessThanOrEqual(sizes.card.right);
      expect(sizes.wrapper.scroll).toBeGreaterThan(sizes.wrapper.client);
      expect(sizes.wrapper.scrolled).toBe(200);
    } finally {
      await page.close();
    }
  });
});
