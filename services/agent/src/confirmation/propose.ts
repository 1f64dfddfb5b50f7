import { randomUUID } from 'node:crypto';
import { parseToolName, singular, type ToolDefinition, type ValidationResult } from '@munim/contracts';
import { primaryToolGroup } from '@munim/kit';
import { withoutImages } from '../attachments.ts';
import { confirmationQuestion, confirmWord, describeChanges, idArgs, recordLabel } from '../confirm.ts';
import { asksForChange } from '../requested.ts';
import { type Asked, complete } from '../run/complete.ts';
import type { Run } from '../run/run.ts';
import { toolStep } from '../tool-step/tool-step.ts';
import { isRecord } from '../util.ts';
import { emitMcq } from './events.ts';
import type { LoopState } from './state.ts';

/** The first object (three levels deep at most) one of whose own values is `id`. */
function holding(value: unknown, id: string, depth = 0): Record<string, unknown> | undefined {
  if (depth > 3 || value === null || typeof value !== 'object') return undefined;
  const children = Array.isArray(value) ? value : Object.values(value);
  if (!Array.isArray(value) && children.some((v) => v === id)) return value as Record<string, unknown>;
  for (const child of children) {
    const found = holding(child, id, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The record a write acts on, in words (its name, number or reference), read with a read tool of
 * the same group that takes its id; for a write nobody asked for, the id itself when no read names it.
 */
async function recordName(
  run: Run,
  tool: string,
  args: Record<string, unknown>,
  unrequested: boolean,
): Promise<string | undefined> {
  // Only a change to a record that exists has one to name: its own id (`InvoiceId` of void_invoice).
  const { verbClass, nouns } = parseToolName(tool);
  if (verbClass !== 'destructive' && verbClass !== 'edit') return undefined;
  const own = new Set(['id', ...nouns.map(singular)]);
  const ids = idArgs(args).filter(([field]) => own.has(parseToolName(field).words[0] ?? ''));
  if (ids.length === 0) return undefined;
  const group = primaryToolGroup(tool);
  const readers = (await run.ctx.tools.list(run.scope, run.traceparent)).filter(
    (t) => !t.isWrite && (group === null || primaryToolGroup(t.name) === group),
  );
  for (const [field, value] of ids) {
    const takes = (t: ToolDefinition) =>
      isRecord(t.inputSchema.properties) && field in t.inputSchema.properties;
    const needs = (t: ToolDefinition) =>
      Array.isArray(t.inputSchema.required) ? t.inputSchema.required.filter((f) => f !== field).length : 0;
    // A read by that id first ("get"), one that needs nothing else.
    const reader = readers
      .filter((t) => takes(t) && needs(t) === 0)
      .sort((a, b) => {
        const byId = (t: ToolDefinition) =>
          Array.isArray(t.inputSchema.required) && t.inputSchema.required.includes(field) ? 0 : 1;
        return byId(a) - byId(b);
      })[0];
    if (reader) {
      const step = await toolStep(run, reader.name, { [field]: value }, { mayConfirm: false });
      const label = step.kind === 'executed' && step.success ? recordLabel(step.content) : undefined;
      if (label) return label;
      continue;
    }
    // No read by id: the group's list, and the record in it that holds the id.
    const list = readers.find((t) => needs(t) === 0 && !takes(t));
    if (!list) continue;
    const step = await toolStep(run, list.name, {}, { mayConfirm: false });
    const found = step.kind === 'executed' && step.success ? holding(step.content, value) : undefined;
    const label = found ? recordLabel(found) : undefined;
    if (label) return label;
  }
  return unrequested ? ids.map(([, value]) => value).join(', ') : undefined;
}

/** Tier 2 shows before → after: the record as it is now, read through the validator and executor. */
async function currentValues(run: Run, tool: string, args: Record<string, unknown>) {
  const entity = tool.replace(/^update_/, '');
  const idField = Object.keys(args).find((k) => /Id$/.test(k) && typeof args[k] === 'string');
  const reader = (await run.ctx.tools.list(run.scope, run.traceparent)).find(
    (t) => t.name === `get_${entity}`,
  );
  const formats = await run.formats();
  if (!idField || !reader) return describeChanges({}, args, formats);
  const step = await toolStep(run, reader.name, { [idField]: args[idField] }, { mayConfirm: false });
  const before = step.kind === 'executed' && step.success && isRecord(step.content) ? step.content : {};
  return describeChanges(before, args, formats);
}

/** Puts a validated write to the user (seed 000 §7) and ends the request awaiting the answer. */
export async function propose(
  run: Run,
  data: Asked,
  userText: string,
  step: { validation: ValidationResult; callId: string },
  toolCallId: string,
  loopState: Pick<LoopState, 'messages' | 'offered' | 'containers' | 'skippedToolCallIds'>,
) {
  const { validation } = step;
  const args = validation.args ?? {};
  // A change the user's message did not ask for came from something read (a tool's result, a
  // file): flagged, named in words, and confirmed by typing, whatever its own tier.
  const unrequested = !asksForChange(data.query, validation.tool);
  if (unrequested) run.guardrails.add('unrequested_write');
  const tier = unrequested ? 3 : validation.tier;
  const changes = tier === 2 ? await currentValues(run, validation.tool, args) : undefined;
  const record = await recordName(run, validation.tool, args, unrequested);
  const question = confirmationQuestion(validation.tool, args, tier, changes, {
    record,
    unrequested,
    formats: await run.formats(),
  });
  const actionId = randomUUID();
  const confirmText = tier === 3 ? confirmWord(validation.tool) : null;
  const state: LoopState = {
    ...loopState,
    messages: withoutImages(loopState.messages),
    iterations: run.iterations,
    usage: run.usage,
    toolResults: run.toolResults,
    query: data.query,
    route: data.route,
    ...(unrequested ? { unrequested } : {}),
    ...(record ? { record } : {}),
  };
  await run.ctx.store.createPending(run.scope, {
    actionId,
    tool: validation.tool,
    args,
    argsHash: validation.argsHash,
    tier,
    confirmText,
    question,
    callId: step.callId,
    toolCallId,
    state,
    expiresAt: new Date(Date.now() + run.ctx.config.confirmTtlMs),
  });
  await run.emit({
    type: 'confirmation',
    payload: { actionId, step: 'proposed', tool: validation.tool, tier, args_hash: validation.argsHash },
  });
  await emitMcq(run, { actionId, tool: validation.tool, args, tier, question, confirmText, state });
  await complete(run, data, userText, question, 'awaiting_confirmation', { actionId });
}
