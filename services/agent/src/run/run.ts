import type { AgentEvent, McpToolResult, RequestScope, Usage, ValidationResult } from '@munim/contracts';
import { type BusinessContext, DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import { primaryToolGroup } from '@munim/kit';
import type { AttachmentRef } from '../model/attachments.ts';
import type { Enrichment } from '../render/enrichments.ts';
import { type Formats, formatsFor } from '../render/locale.ts';
import type { AgentContext } from './context.ts';
import type { BusinessBooks } from './store.ts';

/** A write the turn attempted, and what became of it. */
export interface WriteOutcome {
  tool: string;
  success: boolean;
  /** Sent, but no answer came: it may or may not have been applied (TOOL_OUTCOME_UNKNOWN). */
  unknown?: boolean;
  /** A read of the same records ran after it, so an answer may say what became of it. */
  checked?: boolean;
  /** The arguments it was sent with, kept when its outcome is unknown: they name what to look for. */
  args?: Record<string, unknown>;
}

/** Whether `tool` concerns the records `write` changed: the same tool group (any tool when the write is in none). */
export function sameRecords(tool: string, write: string): boolean {
  const group = primaryToolGroup(write);
  return group === null || primaryToolGroup(tool) === group;
}

/** One request while the agent works on it: the agent's context, the request's scope, and its state so far. */
export class Run {
  usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  toolResults: McpToolResult[] = [];
  readonly writes: WriteOutcome[] = [];
  readonly guardrails = new Set<string>();
  readonly enrichments: Enrichment[] = [];
  readonly attempts = new Map<string, number>();
  /** The last blocked validation of each tool and how many times in a row it was blocked. */
  readonly blocked = new Map<string, ValidationResult>();
  readonly blockedInARow = new Map<string, number>();
  iterations = 0;
  /** `<provider>/<model>` of the model that answered the last call (a fallback, when the default failed). */
  answeredBy: string | undefined;
  /** The gateway named the conversation for this request: nothing of it is stored yet. */
  newConversation = false;
  /** Files attached to this request, kept with its user message in the conversation. */
  attachments: AttachmentRef[] = [];
  private businessContext: Promise<BusinessContext> | undefined;
  private booksRead: Promise<BusinessBooks> | undefined;
  private formatsOf: Promise<Formats> | undefined;
  private emitted = 0;
  /** What a client rendering the stream shows: the `response_chunk`s since the last `response_replace`. */
  private streamed = '';
  /** Events emitted while holding, with their number among the run's events (for their msgID). */
  private held: { event: AgentEvent; n: number }[] | undefined;
  private callSeq = 0;
  readonly ctx: AgentContext;
  readonly scope: RequestScope;
  readonly traceparent: string | undefined;
  /** Which delivery of the request this is (1, or more when another instance died holding it). */
  readonly delivery: number;

  constructor(ctx: AgentContext, scope: RequestScope, traceparent: string | undefined, delivery = 1) {
    this.ctx = ctx;
    this.scope = scope;
    this.traceparent = traceparent;
    this.delivery = delivery;
  }

  /**
   * Deterministic message ids within one delivery, so a publish repeated by it is stored once. A
   * redelivery counts its own: it does not take the path its dead predecessor took (it finishes
   * an approved write without approving it again; a model may answer it in other words), so its
   * n-th event is not the first one's, and under the same id JetStream would drop it as a
   * duplicate — its `complete` included.
   */
  async emit(event: AgentEvent): Promise<void> {
    this.emitted += 1;
    if (event.type === 'response_chunk') this.streamed += event.payload.text;
    if (event.type === 'response_replace') this.streamed = event.payload.text;
    if (this.held) {
      this.held.push({ event, n: this.emitted });
      return;
    }
    await this.ctx.bus.emit(this.scope, event, this.traceparent, this.msgID(this.emitted));
  }

  /** The answer text the stream has shown so far. */
  get shown(): string {
    return this.streamed;
  }

  private msgID(first: number, last = first) {
    const delivery = this.delivery > 1 ? `${this.delivery}:` : '';
    return `${this.scope.requestId}:agent:${delivery}${first}${last > first ? `-${last}` : ''}`;
  }

  /**
   * Holds the events emitted from now on until `flush` or `release`, to send them as one message:
   * for work that has several events at once and nothing slow in between (a fast-path answer).
   * Whatever is held goes out before this run asks another service anything (see `flush`).
   */
  hold(): void {
    this.held ??= [];
  }

  /** Sends what is held, as one message, and goes on holding. */
  async flush(): Promise<void> {
    const held = this.held;
    if (!held || held.length === 0) return;
    this.held = [];
    await this.ctx.bus.emitAll(
      this.scope,
      held.map((h) => h.event),
      this.traceparent,
      this.msgID(held[0]!.n, held.at(-1)!.n),
    );
  }

  /** Sends what is held and stops holding. */
  async release(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.held = undefined;
    }
  }

  /** An event that happens once in the request whichever delivery emits it, `what` naming it. */
  async emitOnce(event: AgentEvent, what: string): Promise<void> {
    await this.flush();
    await this.ctx.bus.emit(this.scope, event, this.traceparent, `${this.scope.requestId}:agent:${what}`);
  }

  /**
   * The tenant's business context (currency, locale, financial year), read once per request; an
   * unreadable one is the default, so a database hiccup costs the formatting, not the answer.
   */
  business(): Promise<BusinessContext> {
    this.businessContext ??= this.businessBooks()
      .then((books) => books.business)
      .catch((error: unknown) => {
        this.ctx.log.warn(
          { err: error, requestId: this.scope.requestId },
          'business context not read; using the default',
        );
        return { ...DEFAULT_BUSINESS_CONTEXT };
      });
    return this.businessContext;
  }

  /**
   * The business context with its books (tax rules, registration, lock date), read once per
   * request in one statement.
   */
  businessBooks(): Promise<BusinessBooks> {
    this.booksRead ??= Promise.resolve().then(() => this.ctx.store.businessBooks(this.scope));
    return this.booksRead;
  }

  /** Whether the business and its books have been asked for in this request. */
  get businessBooksAsked(): boolean {
    return this.booksRead !== undefined;
  }

  /** Money, numbers and dates as the tenant's business writes them. */
  formats(): Promise<Formats> {
    this.formatsOf ??= this.business().then(formatsFor);
    return this.formatsOf;
  }

  /** Writes that may or may not have run and that no read has checked yet. */
  uncheckedWrites(): WriteOutcome[] {
    return this.writes.filter((w) => w.unknown && !w.checked);
  }

  /** A call id unique in the request. */
  nextCallId(): string {
    this.callSeq += 1;
    return `${this.scope.requestId}:${this.callSeq}`;
  }

  /** Adds one model call's tokens to the request's. */
  addUsage(u: Usage) {
    this.usage = {
      input_tokens: this.usage.input_tokens + u.input_tokens,
      output_tokens: this.usage.output_tokens + u.output_tokens,
      total_tokens: this.usage.total_tokens + u.total_tokens,
    };
  }
}
