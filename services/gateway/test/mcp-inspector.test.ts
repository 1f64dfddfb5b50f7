import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { EventPayload } from '@munim/contracts';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { completeEvent, fakeBackend, startGateway } from './helpers.ts';

const run = promisify(execFile);
const INSPECTOR = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);
const KEY = 'key-inspector-4b7e2a-01234567';
let testBus: FixtureNats;
let gateway: Gateway;
let url: string;
let backend: Awaited<ReturnType<typeof fakeBackend>>;
let home: string;

const mcq: EventPayload<'mcq'> = {
  actionId: 'act-42',
  mcq_type: 'confirm_write',
  tier: 2,
  question: 'Record a payment of ₹5000 from Acme Corp?',
  options: [
    { label: 'Yes, record it', value: 'confirm' },
    { label: 'Cancel', value: 'cancel' },
  ],
  pending_tool: 'create_payment',
  pending_args: { Amount: 5000 },
};

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  home = await mkdtemp(join(tmpdir(), 'munim-inspector-'));
  ({ gateway, url } = await startGateway(testBus, { GATEWAY_API_KEYS: `${KEY}:ent-i:org-i` }));
  backend = await fakeBackend(testBus, (message) =>
    message.data.query.startsWith('record')
      ? [
          { type: 'mcq', payload: mcq },
          completeEvent(message.data.query, 'Please confirm.', 'awaiting_confirmation'),
        ]
      : [completeEvent(message.data.query, `3 overdue invoices for ${message.entityId}`)],
  );
});

afterAll(async () => {
  try {
    await backend?.stop();
    await gateway?.stop();
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});

/** Runs the MCP Inspector in CLI mode against the gateway and parses its JSON output. */
async function inspector(args: string[], key = KEY): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [
      INSPECTOR,
      '--cli',
      `${url}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${key}`,
      ...args,
    ],
    { env: { ...process.env, HOME: home }, timeout: 15_000 },
  );
  return JSON.parse(stdout);
}

describe('MCP Inspector (CLI mode)', () => {
  test('lists the query_cfo_agent tool', async () => {
    const result = (await inspector(['--method', 'tools/list'])) as { tools: { name: string }[] };
    expect(result.tools.map((tool) => tool.name)).toEqual(['query_cfo_agent']);
  });

  test('calls the tool and gets the answer for the key’s tenant', async () => {
    const result = (await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'query_cfo_agent',
      '--tool-arg',
      'query=show overdue invoices',
    ])) as { structuredContent: Record<string, unknown> };
    expect(result.structuredContent).toMatchObject({
      response: '3 overdue invoices for ent-i',
      status: 'answered',
    });
  });

  test('gets a pending confirmation with its mcq', async () => {
    const result = (await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'query_cfo_agent',
      '--tool-arg',
      'query=record ₹5000 payment from Acme Corp',
    ])) as { structuredContent: Record<string, unknown> };
    expect(result.structuredContent).toMatchObject({ status: 'awaiting_confirmation', mcq });
  });

  test('is refused with a wrong key', async () => {
    await expect(inspector(['--method', 'tools/list'], 'wrong-key')).rejects.toThrow(/auth_required|401/);
  });
});
