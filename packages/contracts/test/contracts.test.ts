import { describe, expect, it } from 'vitest';
import {
  AgentEventSchema,
  catalog,
  classifyTool,
  EVENT_TYPES,
  type EventType,
  isWriteTool,
  messageSchema,
  QueryRequestSchema,
  resolveSubject,
} from '../src/index.ts';

const envelope = {
  id: 'm-1',
  requestId: 'req-1',
  conversationId: 'conv-1',
  entityId: 'ent-1',
  orgId: 'org-1',
  service: 'agent',
  ts: '2026-11-22T10:00:00.000Z',
};

const intent = { id: 'i1', name: 'list_invoices', moduleId: 'sales', confidence: 0.95, description: null };

/** One valid payload per event type. */
const valid: { [T in EventType]: unknown } = {
  connected: { requestId: 'req-1', conversationId: 'conv-1' },
  understanding_started: { query: 'show all invoices' },
  route_started: { intentCount: 12, toolCount: 26 },
  route_classified: { path: 'fast', category: 'unified', confidence: 0.95 },
  tools_filtered: {
    strategy: 'keyword_matched_dynamic',
    groups: ['invoices'],
    tools: ['get_all_invoices'],
    count: 1,
  },
  intent_detecting: { intentCount: 12 },
  intent_detected: { intent, confidence: 0.95 },
  entities_extracted: { entities: { amounts: [5000] } },
  pipeline_planned: {
    steps: [{ tool: 'get_all_invoices', description: 'List invoices', purpose: 'answer' }],
  },
  pipeline_executing: { step: 1, total: 1, tool: 'get_all_invoices' },
  enrichments_planned: { enrichments: [{ type: 'currency', description: 'Indian formatting' }] },
  enrichments_applying: { enrichments: ['currency'] },
  executing_tool: { tool: 'get_all_invoices', callId: 'c1', args: {} },
  tool_result: { tool: 'get_all_invoices', success: true, result: { Invoices: [] } },
  mode_switch: { from: 'general_chat', to: 'unified', reason: 'greeting plus question' },
  write_validation: { tool: 'create_payment', status: 'blocked', missing_fields: ['Amount'], duration_ms: 2 },
  tool_retry: {
    tool: 'create_payment',
    attempt: 2,
    reason: 'Previous attempt blocked by pre-flight validation',
  },
  mcq: {
    actionId: 'a1',
    mcq_type: 'write_confirmation',
    tier: 3,
    question: 'Type VOID to confirm',
    options: [{ label: 'Cancel', value: 'cancel' }],
    pending_tool: 'void_invoice',
    pending_args: { InvoiceId: 'x' },
    confirm_text: 'VOID',
  },
  confirmation: { actionId: 'a1', step: 'proposed', tool: 'void_invoice', tier: 3, args_hash: 'ab' },
  approval_requested: {
    approvalId: 'a1',
    tool: 'create_payment',
    summary: 'Pay Bolt Ltd ₹2,00,000',
    requiredRoles: ['approver', 'owner'],
    approversNeeded: 1,
    expiresAt: '2026-11-23T10:00:00.000Z',
  },
  response_generating: { model: 'openai/gpt' },
  response_chunk: { text: 'Here' },
  response_replace: { text: 'Here, corrected' },
  complete: {
    query: 'q',
    path: 'llm',
    category: 'unified',
    matchedIntent: null,
    extractedEntities: {},
    reasoning: '',
    pipelineSteps: [],
    enrichments: [],
    responseFormat: 'markdown',
    response: 'done',
    mcpToolResults: [{ tool: 'get_all_invoices', success: true }],
    dataSources: ['get_all_invoices'],
    llmModel: 'openai/gpt',
    iterationCount: 1,
    usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
    status: 'answered',
  },
  error: { code: 'NO_MODEL_CONFIGURED', message: 'No model' },
};

/** One invalid payload per event type, each wrong in a way the schema must catch. */
const invalid: { [T in EventType]: unknown } = {
  connected: { requestId: 'req-1' },
  understanding_started: { query: 7 },
  route_started: { intentCount: -1, toolCount: 0 },
  route_classified: { path: 'slow', category: 'unified', confidence: 0.5 },
  tools_filtered: { strategy: 's', groups: 'invoices', tools: [], count: 0 },
  intent_detecting: {},
  intent_detected: { intent, confidence: 1.5 },
  entities_extracted: { entities: [] },
  pipeline_planned: { steps: [{ tool: 'x' }] },
  pipeline_executing: { step: 0, total: 1, tool: 'x' },
  enrichments_planned: { enrichments: ['currency'] },
  enrichments_applying: {},
  executing_tool: {},
  tool_result: { tool: 'x' },
  mode_switch: { from: 'chit_chat', to: 'unified', reason: '' },
  write_validation: { tool: 'x', status: 'maybe', duration_ms: 1 },
  tool_retry: { tool: 'x', attempt: 1, reason: 'first attempt is not a retry' },
  mcq: {
    actionId: 'a',
    mcq_type: 't',
    tier: 4,
    question: 'q',
    options: [],
    pending_tool: 'x',
    pending_args: {},
  },
  confirmation: { actionId: 'a1', step: 'maybe', tool: 'void_invoice', tier: 3, args_hash: 'ab' },
  approval_requested: {
    approvalId: 'a1',
    tool: 'create_payment',
    summary: 'Pay Bolt Ltd ₹2,00,000',
    requiredRoles: ['cashier'],
    approversNeeded: 0,
    expiresAt: 'tomorrow',
  },
  response_generating: { tier: 'premium' },
  response_chunk: {},
  response_replace: { text: 7 },
  complete: { ...(valid.complete as object), status: 'done' },
  error: { code: 'OOPS', message: 'x' },
};

describe('events', () => {
  it.each(EVENT_TYPES)('accepts a valid %s and rejects an invalid one', (type) => {
    expect(AgentEventSchema.safeParse({ type, payload: valid[type] }).success).toBe(true);
    expect(AgentEventSchema.safeParse({ type, payload: invalid[type] }).success).toBe(false);
  });

  it('rejects an unknown event type', () => {
    expect(AgentEventSchema.safeParse({ type: 'surprise', payload: {} }).success).toBe(false);
  });
});

describe('envelope and subjects', () => {
  const samples: Record<keyof typeof catalog, { good: unknown; bad: unknown }> = {
    querySubmitted: { good: { query: 'show all invoices' }, bad: { query: 'x'.repeat(4001) } },
    queryRouted: { good: undefined, bad: { query: 'q', route: { path: 'fast' } } },
    requestEvents: {
      good: { type: 'response_chunk', payload: { text: 'x' } },
      bad: { type: 'response_chunk' },
    },
    requestEnded: {
      good: { type: 'error', payload: { code: 'INTERNAL', message: 'x' } },
      bad: { type: 'complete' },
    },
    toolValidate: {
      good: { tool: 'create_payment', args: {}, callId: 'c', attempt: 1 },
      bad: { tool: '', callId: 'c', attempt: 0 },
    },
    toolExecute: {
      good: { tool: 'get_all_invoices', args: {}, callId: 'c', isWrite: false, argsHash: 'h' },
      bad: { tool: 'get_all_invoices', args: [], callId: 'c', isWrite: false, argsHash: 'h' },
    },
    toolsList: { good: {}, bad: null },
    toolsChanged: {
      good: { reason: 'list_changed', added: ['create_x'], removed: [], changed: [], total: 3 },
      bad: { reason: 'list_changed', added: 'create_x', removed: [], changed: [], total: -1 },
    },
    intentsChanged: {
      good: { reason: 'created', intentIds: ['intent-1'] },
      bad: { reason: '', intentIds: 'intent-1' },
    },
    llmConfigChanged: { good: { reason: 'default', configId: 3 }, bad: { reason: 'default', configId: 'x' } },
    toolPinChanged: {
      good: { reason: 'accepted', server: 'books', tool: 'list_invoices' },
      bad: { reason: 'ignored', server: 'books', tool: 'list_invoices' },
    },
    toolsContainers: { good: { groups: ['invoices'], collapse: 'always' }, bad: { collapse: 'sometimes' } },
    answerBlocks: { good: { text: 'Done.' }, bad: { text: 1 } },
    healthPing: { good: {}, bad: 'ping' },
    messagingInbound: {
      good: {
        type: 'message',
        channel: 'whatsapp',
        messageId: 'wamid.HBgM',
        from: '+919812345678',
        to: '1234567890',
        sentAt: '2026-11-28T10:00:00.000Z',
        content: { kind: 'text', text: 'kitna cash hai?' },
      },
      // A number that is not E.164 names nobody.
      bad: {
        type: 'message',
        channel: 'whatsapp',
        messageId: 'wamid.HBgM',
        from: '919812345678',
        to: '1234567890',
        sentAt: '2026-11-28T10:00:00.000Z',
        content: { kind: 'text', text: 'hi' },
      },
    },
  };

  it.each(Object.keys(catalog) as (keyof typeof catalog)[])(
    '%s parses valid data and rejects invalid data',
    (name) => {
      const schema = messageSchema(catalog[name].schema);
      const { good, bad } = samples[name];
      if (good !== undefined) expect(schema.safeParse({ ...envelope, data: good }).success).toBe(true);
      expect(schema.safeParse({ ...envelope, data: bad }).success).toBe(false);
    },
  );

  it('rejects an envelope with an unsafe request id or unknown service', () => {
    const schema = messageSchema(catalog.querySubmitted.schema);
    expect(schema.safeParse({ ...envelope, requestId: 'a.b', data: { query: 'q' } }).success).toBe(false);
    expect(schema.safeParse({ ...envelope, service: 'billing', data: { query: 'q' } }).success).toBe(false);
    expect(schema.safeParse({ ...envelope, ts: 'yesterday', data: { query: 'q' } }).success).toBe(false);
  });

  it('resolves subject templates and refuses unsafe parameters', () => {
    expect(resolveSubject('munim', catalog.requestEvents.subject, { requestId: 'r-1' })).toBe(
      'munim.events.r-1',
    );
    expect(() => resolveSubject('munim', catalog.requestEvents.subject, { requestId: 'a.>' })).toThrow(
      /unsafe/,
    );
    expect(() => resolveSubject('munim', catalog.requestEvents.subject)).toThrow(/missing parameter/);
  });
});

describe('HTTP query body', () => {
  it('accepts a query and an mcq response', () => {
    expect(QueryRequestSchema.safeParse({ query: 'hi', entityId: 'e', orgId: 'o' }).success).toBe(true);
    expect(
      QueryRequestSchema.safeParse({
        entityId: 'e',
        orgId: 'o',
        conversationId: 'c',
        mcqResponse: { actionId: 'a', value: 'confirm', typedConfirmation: 'VOID' },
      }).success,
    ).toBe(true);
  });

  it.each([
    [{ entityId: 'e', orgId: 'o' }, 'query'],
    [{ query: '', entityId: 'e', orgId: 'o' }, 'query'],
    [{ query: 'q', entityId: 'e' }, 'orgId'],
    [
      { query: 'q', entityId: 'e', orgId: 'o', mcqResponse: { actionId: 'a', value: 'confirm' } },
      'mcqResponse',
    ],
    [{ entityId: 'e', orgId: 'o', mcqResponse: { actionId: 'a', value: 'confirm' } }, 'conversationId'],
    [{ query: 'q', entityId: 'e', orgId: 'o', admin: true }, ''],
  ])('rejects %j naming %s', (body, field) => {
    const result = QueryRequestSchema.safeParse(body);
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(paths).toContain(field);
  });
});

describe('write tools', () => {
  it.each([
    ['create_payment', true],
    ['void_invoice', true],
    ['reconcile_bank', true],
    ['get_all_invoices', false],
    ['list_expenses', false],
  ])('%s is a write tool: %s', (name, write) => {
    expect(isWriteTool(name)).toBe(write);
  });

  it('honours readOnlyHint: false on any name, and readOnlyHint: true only from a trusted server', () => {
    expect(isWriteTool('get_entry', { readOnlyHint: false })).toBe(true);
    expect(isWriteTool('post_entry', { readOnlyHint: true })).toBe(true);
    expect(classifyTool('post_entry', { readOnlyHint: true }, { trustAnnotations: true })).toMatchObject({
      kind: 'read',
      reason: 'annotation',
    });
  });
});
