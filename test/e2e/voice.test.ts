import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { readSse } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
let wav: Buffer;
const tenant = { entityId: 'ent-voice', orgId: 'org-voice' };

test.beforeAll(async ({ database, nats }) => {
  // Real speech, made here: Debian's espeak-ng writes a WAV of the phrase.
  const dir = mkdtempSync(join(tmpdir(), 'munim-voice-'));
  execFileSync('espeak-ng', ['-w', join(dir, 'q.wav'), 'show all invoices']);
  wav = readFileSync(join(dir, 'q.wav'));
  sys = await startSystem({ database, nats, env: { STT_MAX_BYTES: String(wav.length * 4) } });
});

afterAll(async () => {
  await sys?.stop();
});

function form(fields: Record<string, string>, file?: { bytes: Buffer; type: string; name: string }) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  if (file) body.set('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  return body;
}

describe('speech to text', () => {
  test('transcribes real audio through the OpenAI-compatible endpoint', async () => {
    sys.llm?.transcribeAs((upload) => (upload.bytes.length > 1000 ? 'show all invoices' : ''));
    const res = await fetch(`${sys.gatewayUrl}/v1/transcribe`, {
      method: 'POST',
      body: form({}, { bytes: wav, type: 'audio/wav', name: 'q.wav' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ text: 'show all invoices', model: 'gpt-4o-mini-transcribe' });
    const upload = sys.llm?.transcriptions.at(-1);
    expect(upload?.model).toBe('gpt-4o-mini-transcribe');
    expect(upload?.mimeType).toBe('audio/wav');
    expect(
      Buffer.from(upload?.bytes ?? [])
        .subarray(0, 4)
        .toString(),
    ).toBe('RIFF');
    expect(upload?.bytes.length).toBe(wav.length);
  });

  test('answers a spoken query like a typed one', async () => {
    sys.llm?.transcribeAs('show all invoices');
    sys.llm?.script({
      match: 'show all invoices',
      repeat: true,
      turns: [{ content: 'Here are your invoices.' }],
    });
    const res = await fetch(`${sys.gatewayUrl}/v1/query/audio`, {
      method: 'POST',
      body: form(tenant, { bytes: wav, type: 'audio/wav', name: 'q.wav' }),
    });
    const { events } = await readSse(res);
    expect(events.find((e) => e.event === 'understanding_started')?.data.query).toBe('show all invoices');
    expect(events.find((e) => e.event === 'route_classified')?.data.path).toBe('fast');
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
  });

  test('refuses what it cannot take with a clear 4xx naming the file', async () => {
    const cases: [FormData, number][] = [
      [form({}, { bytes: Buffer.from('%PDF-1.4'), type: 'application/pdf', name: 'x.pdf' }), 415],
      [form({}), 400],
      [
        form({}, { bytes: Buffer.concat([wav, wav, wav, wav, wav]), type: 'audio/wav', name: 'big.wav' }),
        413,
      ],
    ];
    for (const [body, status] of cases) {
      const before = sys.llm?.transcriptions.length;
      const res = await fetch(`${sys.gatewayUrl}/v1/transcribe`, { method: 'POST', body });
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe('file');
      expect(sys.llm?.transcriptions.length).toBe(before);
    }
    const bad = await fetch(`${sys.gatewayUrl}/v1/query/audio`, {
      method: 'POST',
      body: form({ orgId: 'o' }, { bytes: wav, type: 'audio/wav', name: 'q.wav' }),
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('entityId');
  });
});
