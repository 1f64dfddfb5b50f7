// End to end: the audit trail of real writes, as an approver exports it through GET /v1/audit and
// an operator verifies it with the documented command. A maker of one entity proposes and confirms
// a write, proposes and cancels another; a maker of a second entity of the same org writes too.
// The first entity's export names the maker on each row, withholds the other entity's rows to
// their place in the chain, and verifies, as JSON and as CSV; a changed row is named; a viewer may
// not read it. All six services run as processes on the real NATS and a fresh PostgreSQL; the LLM
// is scripted and the accounting system is the demo books MCP server.
import { execFile } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AuditExportSchema } from '@munim/contracts';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const run = promisify(execFile);
const VERIFY = join(import.meta.dirname, '../../packages/db/src/verify-audit-main.ts');
const JWT_SECRET = randomBytes(32).toString('hex');
const ORG = 'org-audit';
let sys: TestSystem;
let dir: string;

/** The headers of person `sub` with `roles` for `entityId` of the org: an HS256 token. */
function person(sub: string, entityId: string, roles: string[]): Record<string, string> {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { sub, exp: Math.floor(Date.now() / 1000) + 300, entity_id: entityId, org_id: ORG, roles };
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return {
    authorization: `Bearer ${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`,
  };
}

const last = (events: SseEvent[]) => events.at(-1);

/** `sub` asks to add a customer, and answers the card with `answer`. */
async function write(sub: string, entityId: string, answer: 'confirm' | 'cancel') {
  const name = `Audit Co ${randomUUID().slice(0, 6)}`;
  const query = `add customer ${name}`;
  sys.llm?.script({
    match: query,
    turns: [
      { toolCalls: [{ name: 'create_customer', arguments: { Name: name, Email: 'ap@example.com' } }] },
      { content: `Customer ${name} created.` },
    ],
  });
  const maker = person(sub, entityId, ['maker']);
  const proposed = await ask(sys.gatewayUrl, { query, entityId, orgId: ORG }, maker);
  expect(last(proposed.events)).toMatchObject({ data: { status: 'awaiting_confirmation' } });
  const mcq = proposed.events.find((e) => e.event === 'mcq')?.data as { actionId: string };
  const conversationId = String(proposed.events[0]?.data.conversationId);
  const answered = await ask(
    sys.gatewayUrl,
    { entityId, orgId: ORG, conversationId, mcqResponse: { actionId: mcq.actionId, value: answer } },
    maker,
  );
  expect(last(answered.events)?.event).toBe('complete');
}

async function exported(format: 'json' | 'csv', headers: Record<string, string>) {
  const response = await fetch(`${sys.gatewayUrl}/v1/audit?format=${format}`, { headers });
  return { status: response.status, text: await response.text() };
}

async function verify(text: string, ext: string) {
  const file = join(dir, `${randomUUID()}.${ext}`);
  await writeFile(file, text);
  return run(process.execPath, [VERIFY, file]).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr }),
  );
}

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats, env: { GATEWAY_JWT_SECRET: JWT_SECRET } });
  dir = await mkdtemp(join(tmpdir(), 'munim-audit-e2e-'));
});

afterAll(async () => {
  await sys?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the audit trail of real writes', () => {
  test('is exported to an approver naming the maker, withholds the other entity, and verifies', async () => {
    await write('priya', 'ent-a', 'confirm');
    await write('vikram', 'ent-b', 'confirm');
    await write('priya', 'ent-a', 'cancel');

    const approver = person('asha', 'ent-a', ['approver']);
    const json = await exported('json', approver);
    expect(json.status).toBe(200);
    const { rows } = AuditExportSchema.parse(JSON.parse(json.text));
    const mine = rows.filter((r) => r.entityId === 'ent-a');
    expect(mine.map((r) => [r.actor, r.action, r.tool])).toEqual([
      ['priya', 'proposed', 'create_customer'],
      ['priya', 'confirmed', 'create_customer'],
      ['priya', 'executed', 'create_customer'],
      ['priya', 'proposed', 'create_customer'],
      ['priya', 'cancelled', 'create_customer'],
    ]);
    // Vikram's rows are in the chain, between Priya's, but show nothing of ent-b's business.
    const withheld = rows.filter((r) => r.entityId !== 'ent-a');
    expect(withheld.length).toBe(3);
    expect(withheld.every((r) => r.action === null && r.actor === null && r.summary === null)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain('vikram');
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    const csv = await exported('csv', approver);
    const whole = `audit:verify: 8 rows verified (3 of them withheld, other entities' rows whose links alone are checked): the chain is whole\n`;
    expect(await verify(json.text, 'json')).toEqual({ code: 0, out: whole });
    expect(await verify(csv.text, 'csv')).toEqual({ code: 0, out: whole });

    // One word of a summary changed in the CSV: the verifier names its row.
    const executed = mine.find((r) => r.action === 'executed');
    const summary = executed?.summary ?? '';
    expect(summary).toMatch(/^Done: /);
    const tampered = csv.text.replace(summary, summary.replace('Done: ', 'Done twice: '));
    expect(tampered).not.toBe(csv.text);
    expect(await verify(tampered, 'csv')).toEqual({
      code: 1,
      out: `audit:verify: row ${executed?.seq} of org ${ORG} breaks the chain: its hash is not its own: it was changed\n`,
    });
  });

  test('is not shown to a viewer or a maker', async () => {
    for (const role of ['viewer', 'maker']) {
      const answer = await exported('json', person('ravi', 'ent-a', [role]));
      expect({ role, status: answer.status }).toEqual({ role, status: 403 });
      expect(JSON.parse(answer.text).error.code).toBe('ROLE_REQUIRED');
    }
  });
});
