import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EventPayload, Message, QuerySubmitted } from '@munim/contracts';
import type { Gateway } from '@munim/gateway';
import { completeEvent, fakeBackend, startGateway } from '@munim/gateway/testing';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { printable, progressLine } from '../src/cli.ts';

const ASK = fileURLToPath(new URL('../src/ask.ts', import.meta.url));
const KEY = 'key-cli-0f3b9d-0123456789abc';
let testBus: FixtureNats;
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
  if (query.startsWith('hostile')) {
    // What a model, a tool or a compromised gateway could send: screen clears, cursor moves, a
    // window title, a clipboard write (OSC 52), backspaces, a carriage return, a bidi override.
    return [
      { type: 'executing_tool' as const, payload: { tool: 'list\u001b[2J\u001b[Hinvoices' } },
      {
        type: 'tool_result' as const,
        payload: {
          tool: 'list_invoices',
          success: false,
          error: 'denied\u001b]0;pwned\u0007 \u001b]52;c;ZXZpbA==\u0007',
        },
      },
      { type: 'response_chunk' as const, payload: { text: 'Paid\r\u001b[1A✅ in full\u202e' } },
      completeEvent(query, 'Total \u001b[31m₹5,000\u001b[0m\u0008\u0008 due\u009b2J'),
    ];
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

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway, url } = await startGateway(testBus, { GATEWAY_API_KEYS: `${KEY}:ent-c:org-c` }));
  backend = await fakeBackend(testBus, script);
});

afterAll(async () => {
  await backend?.stop();
  await gateway?.stop();
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
  test('prints progress lines and the answer', async () => {
    const result = await ask(['show overdue invoices']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('2 invoices are overdue for ent-c.\n');
    expect(result.stderr).toContain('· routed: llm path, unified (confidence 0.9)');
    expect(result.stderr).toContain('· calling list_invoices');
    expect(result.stderr).toContain('✓ list_invoices (87 ms)');
    expect(result.stderr).toContain('2 invoices are overdue.');
    expect(result.stderr).toMatch(/· answered · conversation [\w-]+/);
  });

  test('answers an MCQ at the prompt, with the typed confirmation', async () => {
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

  test('cancels when the user picks cancel, exiting 1', async () => {
    const result = await ask(['record ₹5000 payment from Acme Corp'], '2\n');
    expect(result.stdout).toBe('Please confirm.\nCancelled: nothing was recorded.\n');
    expect(backend.received.at(-1)?.message.data.mcqResponse).toEqual({ actionId: 'act-5', value: 'cancel' });
    expect(result.code).toBe(1);
  });

  test('reports refusals and usage errors clearly', async () => {
    const forbidden = await ask(['--entity', 'ent-x', 'show overdue invoices']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('the gateway answered 403');
    const usage = await ask([]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run ask');
  });

  test('shows the replacement of a streamed answer, and prints the final answer', async () => {
    const result = await ask(['claim the rent was paid']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Nothing was recorded yet.\n');
    expect(result.stderr).toContain('\nPayment of ₹500 \n· corrected:\nNothing was recorded yet.\n');
  });

  test('prints no terminal control sequence that the gateway, a model or a tool sent', async () => {
    const result = await ask(['hostile answer']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Total ₹5,000 due\n');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters.
    const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    expect(result.stdout).not.toMatch(control);
    expect(result.stderr).not.toMatch(control);
    expect(result.stderr).toContain('· calling listinvoices');
    expect(result.stderr).toContain('✗ list_invoices failed: denied ');
    expect(result.stderr).not.toContain('pwned');
    expect(result.stderr).toContain('Paid✅ in full');
  });

  test('strips every control sequence of generated text and keeps the rest as it was', () => {
    // A seeded generator: words in several scripts between escape sequences and bare controls.
    let seed = 20261126;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const words = ['Acme', '₹5,000', 'बकाया', 'paid ✅', 'INV-043', '12/10/2026', ' ', '\n', '\t'];
    const hostile = [
      '\u001b[31m',
      '\u001b[2J',
      '\u001b[10;20H',
      '\u001b]0;title\u0007',
      '\u001b]8;;http://x\u001b\\',
      '\u001b]52;c;aGk=\u0007',
      '\u001bc',
      '\u009b1A',
      '\r',
      '\u0008',
      '\u0007',
      '\u0000',
      '\u007f',
      '\u202e',
      '\u2066',
    ];
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters.
    const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    for (let i = 0; i < 2_000; i++) {
      const parts = Array.from({ length: 1 + next(12) }, () =>
        next(3) === 0
          ? { text: hostile[next(hostile.length)] as string, safe: false }
          : { text: words[next(words.length)] as string, safe: true },
      );
      const out = printable(parts.map((p) => p.text).join(''));
      expect(out).not.toMatch(control);
      expect(out).not.toContain('\u001b');
      expect(out).toBe(
        parts
          .filter((p) => p.safe)
          .map((p) => p.text)
          .join(''),
      );
    }
  });

  test('has a line for each progress event it knows and none for the answer text', () => {
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
