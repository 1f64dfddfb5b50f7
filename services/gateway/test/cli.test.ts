import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EventPayload, Message, QuerySubmitted } from '@munim/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { progressLine } from '../src/cli.ts';
import { completeEvent, fakeBackend, startGateway, TestBus } from './helpers.ts';

const ASK = fileURLToPath(new URL('../src/ask.ts', import.meta.url));
const KEY = 'key-cli-0f3b9d-0123456789abc';
const testBus = new TestBus();
let gateway: Gateway;
let url: string;
let backend: Awaited<ReturnType<typeof fakeBackend>>;

const mcq: EventPayload<'mcq'> = {
  actionId: 'act-5',
  mcq_type: 'confirm_write',
  tier: 3,
  question: 'Record a payment of ₹5000 from Acme Corp?',
  options: [
    { label: 'Yes, record it', value: 'confirm' },
    { label: 'Cancel', value: 'cancel' },
  ],
  pending_tool: 'create_payment',
  pending_args: { Amount: 5000 },
  confirm_text: 'RECORD',
};

function script(message: Message<QuerySubmitted>) {
  const { query, mcqResponse } = message.data;
  if (mcqResponse) {
    return mcqResponse.value === 'confirm' && mcqResponse.typedConfirmation === 'RECORD'
      ? [completeEvent('', 'Payment recorded (PAY-001).')]
      : [completeEvent('', 'Cancelled: nothing was recorded.', 'cancelled')];
  }
  if (query.startsWith('claim')) {
    return [
      { type: 'response_chunk' as const, payload: { text: 'Payment of ₹500 ' } },
      { type: 'response_replace' as const, payload: { text: 'Nothing was recorded yet.' } },
      completeEvent(query, 'Nothing was recorded yet.'),
    ];
  }
  if (query.startsWith('record')) {
    return [
      { type: 'mcq' as const, payload: mcq },
      completeEvent(query, 'Please confirm.', 'awaiting_confirmation'),
    ];
  }
  return [
    {
      type: 'route_classified' as const,
      payload: { path: 'llm' as const, category: 'unified' as const, confidence: 0.9 },
    },
    { type: 'executing_tool' as const, payload: { tool: 'list_invoices' } },
    { type: 'tool_result' as const, payload: { tool: 'list_invoices', success: true, duration_ms: 87 } },
    { type: 'response_chunk' as const, payload: { text: '2 invoices are overdue.' } },
    completeEvent(query, `2 invoices are overdue for ${message.entityId}.`),
  ];
}

beforeAll(async () => {
  ({ gateway, url } = await startGateway(testBus, { GATEWAY_API_KEYS: `${KEY}:ent-c:org-c` }));
  backend = await fakeBackend(testBus, script);
});

afterAll(async () => {
  try {
    await backend?.stop();
    await gateway?.stop();
  } finally {
    await testBus.close();
  }
});

/** Runs `node src/ask.ts` (what `npm run ask` runs) with the given stdin. */
function ask(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ASK, ...args], {
      env: {
        ...process.env,
        MUNIM_URL: url,
        MUNIM_API_KEY: KEY,
        MUNIM_ENTITY_ID: 'ent-c',
        MUNIM_ORG_ID: 'org-c',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('npm run ask', () => {
  it('prints progress lines and the answer', async () => {
    const result = await ask(['show overdue invoices']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('2 invoices are overdue for ent-c.\n');
    expect(result.stderr).toContain('· routed: llm path, unified (confidence 0.9)');
    expect(result.stderr).toContain('· calling list_invoices');
    expect(result.stderr).toContain('✓ list_invoices (87 ms)');
    expect(result.stderr).toContain('2 invoices are overdue.');
    expect(result.stderr).toMatch(/· answered · conversation [\w-]+/);
  });

  it('answers an MCQ at the prompt, with the typed confirmation', async () => {
    const result = await ask(['record ₹5000 payment from Acme Corp'], '1\nRECORD\n');
    expect(result.stderr).toContain('? Record a payment of ₹5000 from Acme Corp?');
    expect(result.stderr).toContain('1) Yes, record it');
    expect(result.stdout).toBe('Please confirm.\nPayment recorded (PAY-001).\n');
    expect(result.code).toBe(0);
    const answer = backend.received.at(-1)?.message;
    expect(answer?.data.mcqResponse).toEqual({
      actionId: 'act-5',
      value: 'confirm',
      typedConfirmation: 'RECORD',
    });
    expect(answer?.conversationId).toBe(backend.received.at(-2)?.message.conversationId);
  });

  it('cancels when the user picks cancel, exiting 1', async () => {
    const result = await ask(['record ₹5000 payment from Acme Corp'], '2\n');
    expect(result.stdout).toBe('Please confirm.\nCancelled: nothing was recorded.\n');
    expect(backend.received.at(-1)?.message.data.mcqResponse).toEqual({ actionId: 'act-5', value: 'cancel' });
    expect(result.code).toBe(1);
  });

  it('reports refusals and usage errors clearly', async () => {
    const forbidden = await ask(['--entity', 'ent-x', 'show overdue invoices']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('the gateway answered 403');
    const usage = await ask([]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run ask');
  });

  it('shows the replacement of a streamed answer, and prints the final answer', async () => {
    const result = await ask(['claim the rent was paid']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Nothing was recorded yet.\n');
    expect(result.stderr).toContain('\nPayment of ₹500 \n· corrected:\nNothing was recorded yet.\n');
  });

  it('has a line for each progress event it knows and none for the answer text', () => {
    expect(
      progressLine('write_validation', {
        tool: 'create_payment',
        status: 'blocked',
        message: 'Amount missing',
      }),
    ).toBe('! create_payment blocked: Amount missing');
    expect(progressLine('response_chunk', { text: 'x' })).toBeNull();
    expect(progressLine('response_replace', { text: 'x' })).toBeNull();
  });
});
