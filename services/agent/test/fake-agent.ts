// An agent's context for one request with its neighbours played in-process: the validator and the
// executor answer over a stand-in bus (every call is recorded), the books are a function, the store
// keeps a conversation in memory. The model is whatever the test gives (the scripted LLM over HTTP).
import { randomUUID } from 'node:crypto';
import type {
  AgentEvent,
  ExecutionResult,
  QueryRouted,
  RequestScope,
  ToolDefinition,
  ValidationResult,
} from '@munim/contracts';
import { type ConversationMessage, DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import type { Llm } from '../src/model/llm.ts';
import type { AgentContext } from '../src/run/context.ts';
import { Run } from '../src/run/run.ts';

type Args = Record<string, unknown>;

/** A tool of the registry: a read unless `write` says otherwise. */
export function toolDef(
  name: string,
  properties: Args = {},
  opts: { write?: boolean; required?: string[] } = {},
) {
  const def: ToolDefinition = {
    name,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(Object.keys(properties).map((k) => [k, { type: 'string' }])),
      ...(opts.required ? { required: opts.required } : {}),
    },
    isWrite: opts.write === true,
  };
  return def;
}

export interface FakeAgent {
  run: Run;
  /** Every request the agent sent on the bus, in order. */
  requests: { subject: string; tool?: string; args?: unknown }[];
  events: AgentEvent[];
  /** Summaries the agent saved, with how many messages each holds. */
  saved: { summary: string; count: number }[];
}

export function fakeAgent(opts: {
  tools: ToolDefinition[];
  /** Answers a read; a thrown error is the books' failure. */
  books?: (tool: string, args: Args) => unknown;
  llm?: Llm | null;
  messages?: ConversationMessage[];
  maxIterations?: number;
  /** Tools whose execution nobody answers (the request fails). */
  unanswered?: string[];
}): FakeAgent {
  const requests: FakeAgent['requests'] = [];
  const events: AgentEvent[] = [];
  const saved: FakeAgent['saved'] = [];
  const audits: unknown[] = [];
  const find = (name: string) => opts.tools.find((t) => t.name === name);
  const bus = {
    async request(subject: string, _scope: RequestScope, payload: { tool?: string; args?: unknown }) {
      requests.push({ subject, ...(payload.tool ? { tool: payload.tool } : {}), args: payload.args });
      const def = payload.tool ? find(payload.tool) : undefined;
      if (subject === 'toolValidate') {
        const validation: ValidationResult = {
          tool: String(payload.tool),
          status: def ? 'passed' : 'blocked',
          isWrite: def?.isWrite ?? true,
          args: (payload.args ?? {}) as Args,
          missingFields: [],
          fieldsValidated: [],
          issues: [],
          message: def ? '' : `There is no tool ${payload.tool}.`,
          suggestedTools: [],
          tier: def?.isWrite ? (/^(void|delete)/.test(def.name) ? 3 : /^update/.test(def.name) ? 2 : 1) : 0,
          argsHash: `hash-${JSON.stringify(payload.args)}`,
          guardrails: [],
          durationMs: 1,
        };
        return validation;
      }
      if (subject === 'toolExecute') {
        if (opts.unanswered?.includes(String(payload.tool))) throw new Error('no executor answered');
        const base = { tool: String(payload.tool), truncated: false, durationMs: 1 };
        try {
          const result: ExecutionResult = {
            ...base,
            success: true,
            result: opts.books?.(String(payload.tool), (payload.args ?? {}) as Args),
          };
          return result;
        } catch (error) {
          const failed: ExecutionResult = {
            ...base,
            success: false,
            error: { code: 'TOOL_FAILED', message: error instanceof Error ? error.message : String(error) },
          };
          return failed;
        }
      }
      throw new Error(`nobody answers ${subject} here`);
    },
    async emit(_scope: RequestScope, event: AgentEvent) {
      events.push(event);
    },
  };
  const store = {
    conversation: async () =>
      opts.messages ? { messages: opts.messages, summary: null, summarizedCount: 0 } : undefined,
    saveSummary: async (_scope: RequestScope, summary: string, count: number) =>
      void saved.push({ summary, count }),
    appendTurn: async () => undefined,
    logUsage: async () => undefined,
    businessContext: async () => ({ ...DEFAULT_BUSINESS_CONTEXT }),
    lockDate: async () => null,
    createPending: async () => undefined,
    audit: async (entry: unknown) => void audits.push(entry),
  };
  const silent = { info() {}, warn() {}, error() {}, debug() {} };
  const ctx = {
    bus,
    log: silent,
    llm: opts.llm ?? null,
    tools: { list: async () => opts.tools, find: async (name: string) => find(name), invalidate() {} },
    store,
    config: {
      maxIterations: opts.maxIterations ?? 10,
      maxWriteRetries: 2,
      maxTokens: { cheap: 500, capable: 500, chat: 500 },
      validateTimeoutMs: 1000,
      executeTimeoutMs: 1000,
      concurrency: 1,
      persona: { name: 'Munim', product: 'the books' },
      confirmTtlMs: 60_000,
      historyMessages: 10,
    },
    attachmentMaxChars: 30_000,
  } as unknown as AgentContext;
  const scope: RequestScope = {
    requestId: randomUUID(),
    conversationId: randomUUID(),
    entityId: 'ent-test',
    orgId: 'org-test',
  };
  return { run: new Run(ctx, scope, undefined), requests, events, saved };
}

/** A query the router sent to the model with `tools`. */
export function routed(query: string, tools: string[]): QueryRouted {
  const data: QueryRouted = {
    query,
    route: {
      path: 'llm',
      category: 'unified',
      confidence: 0.9,
      tier: 'cheap',
      intent: null,
      extractedEntities: {},
      strategy: 'keywords',
      toolGroups: [],
      tools,
      pipeline: [],
      reasoning: 'a test',
    },
  };
  return data;
}
