import type { Served } from '@munim/bus';
import { type ValidatorDeps, validatorContext } from './context.ts';
import { blocksHandler } from './handlers/blocks.ts';
import { containersHandler } from './handlers/containers.ts';
import { validateHandler } from './handlers/validate.ts';

export { argsHash, canonicalJson } from '@munim/kit';
export { parseArgs } from './args.ts';
export { BLOCK_GUARDRAILS, BLOCK_SCHEMAS, repairBlocks } from './blocks.ts';
export {
  buildContainers,
  type CollapseMode,
  type Container,
  checkContainerCall,
  collapseTools,
  makeContainer,
  TOOL_GROUPS,
} from './containers.ts';
export type { ValidatorConfig, ValidatorDeps } from './context.ts';
export { createLlmCorrector, type JsonCorrector } from './correct.ts';
export { CONCEPTS, type Concept } from './fields.ts';
export { FIELD_QUESTIONS, FIELD_SOURCES, questionsFor } from './guidance.ts';
export { checkJournal } from './journal.ts';
export { type CallRules, rulesFor } from './match.ts';
export { confirmationTier, WRITE_RULES, type WriteRuleSpec } from './rules.ts';
export { SchemaCompiler, strictify } from './schema.ts';
export { GUARDRAILS, unknownTool, validateCall } from './validate.ts';

export interface Validator {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The validator: answers `toolValidate` for every tool call before it may run, and emits a
 * `write_validation` event for each write it checks; collapses the tools offered to the model into
 * containers (`toolsContainers`) and repairs an answer's blocks (`answerBlocks`).
 */
export async function buildValidator(deps: ValidatorDeps): Promise<Validator> {
  const ctx = validatorContext(deps);
  const { bus, log, tools } = ctx;
  const served: Served[] = [];
  let toolsChanged: ReturnType<typeof bus.listen> | undefined;

  return {
    async start() {
      // The executor's notice of a changed registry: refetch now rather than at the end of the TTL;
      // changed schemas then hash differently and are recompiled on their next call.
      toolsChanged = bus.listen('toolsChanged', (message) => {
        tools.invalidate();
        log.info({ ...message.data }, 'tool registry changed; refetching');
      });
      served.push(
        bus.serve('toolValidate', validateHandler(ctx)),
        bus.serve('toolsContainers', containersHandler(ctx)),
        bus.serve('answerBlocks', blocksHandler(ctx)),
      );
      await bus.flush();
    },
    async stop() {
      toolsChanged?.unsubscribe();
      await Promise.all(served.map((s) => s.stop()));
    },
  };
}
