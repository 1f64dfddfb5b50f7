import type { Bus } from '@munim/bus';
import type { ApprovalPolicy } from '@munim/contracts';
import type { Logger, ToolCatalog } from '@munim/kit';
import type { AttachmentSource, VisionMode } from '../model/attachments.ts';
import type { Llm } from '../model/llm.ts';
import type { Persona } from '../model/prompts.ts';
import type { TokenQuota } from '../model/quota.ts';
import type { AgentStore } from './store.ts';

/** The agent's settings, from the environment. */
export interface AgentConfig {
  maxIterations: number;
  maxWriteRetries: number;
  maxTokens: { cheap: number; capable: number; chat: number };
  validateTimeoutMs: number;
  executeTimeoutMs: number;
  concurrency: number;
  /** Unacknowledged this long, a query goes to another instance (default 60 s). */
  ackWaitMs?: number;
  persona: Persona;
  confirmTtlMs: number;
  historyMessages: number;
  /** Images go to the model: on, off, or by its name. */
  vision?: VisionMode;
  /** Characters of attachment text given to the model per query. */
  attachmentMaxChars?: number;
  /** How long a write waits for its approvers (default a day). */
  approvalTtlMs?: number;
  /** The operator's approval policy (`APPROVAL_POLICY_FILE`); an org's own takes its place. */
  approvalPolicy?: ApprovalPolicy | undefined;
}

/** What `buildAgent` is given. */
export interface AgentDeps {
  bus: Bus;
  log: Logger;
  /** The configured model, or null when none is (fast path still works). */
  llm: Llm | null;
  tools: ToolCatalog;
  store: AgentStore;
  config: AgentConfig;
  /** Uploaded files (`attachmentIds` of a query); without it such queries end with an error. */
  attachments?: AttachmentSource | undefined;
  /** The per-tenant model token quota; without it model calls are not limited. */
  tokenQuota?: TokenQuota | undefined;
}

/** What every request of one agent shares: its dependencies and the settings derived from them. */
export interface AgentContext extends AgentDeps {
  /** Characters of attachment text given to the model per query. */
  attachmentMaxChars: number;
}

/** The shared context of an agent built from `deps`. */
export function agentContext(deps: AgentDeps): AgentContext {
  return { ...deps, attachmentMaxChars: deps.config.attachmentMaxChars ?? 30_000 };
}
