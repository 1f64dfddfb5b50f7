import { randomUUID } from 'node:crypto';
import type { AgentEvent, Message } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { emptyRow as blankRow, foldEvent, type RoutingLog } from '../src/fold.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

function at(offsetMs: number, data: AgentEvent): Message<AgentEvent> {
  return {
    id: randomUUID(),
    requestId: 'r1',
    conversationId: 'c1',
    entityId: 'e1',
    orgId: 'o1',
    service: 'agent',
    ts: new Date(T0 + offsetMs).toISOString(),
    data,
  };
}

function emptyRow(createdAtOffset = 0): RoutingLog {
  return blankRow(
    { request_id: 'r1', entity_id: 'e1', org_id: 'o1', conversation_id: 'c1', trace_id: null },
    new Date(T0 + createdAtOffset),
  );
}

const complete = (status: 'answered' | 'needs_input', llmModel = 'm'): AgentEvent => ({
  type: 'complete',
  payload: {
    query: 'show all invoices',
    path: 'fast',
    category: 'unified',
    matchedIntent: {
      id: 'intent_list_invoices',
      name: 'list_invoices',
      moduleId: 'sales',
      confidence: 0.95,
      description: null,
    },
    extractedEntities: {},
    reasoning: '',
    pipelineSteps: [],
    enrichments: [],
    responseFormat: 'table',
    response: 'Here are your invoices.',
    mcpToolResults: [],
    dataSources: [],
    llmModel,
    iterationCount: 0,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    status,
  },
});

describe('foldEvent', () => {
  it('leaves its input untouched', () => {
    const row = emptyRow();
    foldEvent(
      row,
      at(5, {
        type: 'write_validation',
        payload: { tool: 'create_bill', status: 'blocked', duration_ms: 1 },
      }),
    );
    expect(row).toEqual(emptyRow());
  });

  it('fills the mcp_result of the newest passed, unanswered write of that tool, with the error on failure', () => {
    let row = emptyRow();
    const passed: AgentEvent = {
      type: 'write_validation',
      payload: {
        tool: 'create_invoice',
        status: 'passed',
        fields_validated: ['ContactId', 'Lines'],
        duration_ms: 1,
      },
    };
    row = foldEvent(row, at(1, passed));
    row = foldEvent(row, at(2, { type: 'tool_result', payload: { tool: 'create_invoice', success: true } }));
    row = foldEvent(row, at(3, passed));
    row = foldEvent(
      row,
      at(4, { type: 'tool_result', payload: { tool: 'get_bills', success: false, error: 'x' } }),
    );
    row = foldEvent(
      row,
      at(5, { type: 'tool_result', payload: { tool: 'create_invoice', success: false, error: 'MCP 500' } }),
    );
    expect(row.write_tool_results.map((w) => w.mcp_result)).toEqual([
      { success: true },
      { success: false, error: 'MCP 500' },
    ]);
    expect(row.tools_used).toEqual(['create_invoice']);
    expect(row.tools_failed).toEqual(['get_bills', 'create_invoice']);
    expect(row.guardrails_triggered).toEqual([]);
    expect(row.is_write_operation).toBe(true);
  });

  it('takes intent, query and outcome from complete when earlier events did not set them', () => {
    const row = foldEvent(emptyRow(), at(250, complete('needs_input', '')));
    expect(row).toMatchObject({
      query: 'show all invoices',
      intent_id: 'intent_list_invoices',
      intent_confidence: 0.95,
      status: 'needs_input',
      path: 'fast',
      llm_model: null,
      latency_ms: 250,
      response: 'Here are your invoices.',
    });
  });

  it('keeps created_at at the earliest event when an older one is folded late', () => {
    let row = emptyRow(1000);
    row = foldEvent(row, at(1500, complete('answered')));
    expect(row.latency_ms).toBe(500);
    row = foldEvent(
      row,
      at(200, { type: 'understanding_started', payload: { query: 'show all invoices!' } }),
    );
    expect(row.created_at.toISOString()).toBe(new Date(T0 + 200).toISOString());
    expect(row.latency_ms).toBe(1300);
    expect(row.query).toBe('show all invoices!');
    expect(row.status).toBe('answered');
  });

  it('records an error as the outcome', () => {
    const row = foldEvent(
      emptyRow(),
      at(40, { type: 'error', payload: { code: 'LLM_UNAVAILABLE', message: 'down' } }),
    );
    expect(row).toMatchObject({
      status: 'error',
      error_code: 'LLM_UNAVAILABLE',
      response: 'down',
      latency_ms: 40,
    });
  });
});
