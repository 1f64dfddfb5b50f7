/**
 * Type-level tests of the catalog: checked by `npm run typecheck` (tsc reads this file), so a
 * subject that changes kind, or a schema whose inferred type drifts from the exported type, fails CI.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  type AgentEvent,
  type BroadcastSubjectName,
  type Catalog,
  CodedError,
  type ErrorCode,
  type ExecuteRequest,
  type ExecutionResult,
  type Message,
  type QueryRouted,
  type QuerySubmitted,
  type RequestSubjectName,
  type StreamSubjectName,
  type SubjectName,
  type ToolList,
  type ValidateRequest,
  type ValidationResult,
} from '../src/index.ts';

type DataOf<N extends SubjectName> = z.infer<Catalog[N]['schema']>;
type ReplyOf<N extends RequestSubjectName> = z.infer<Catalog[N]['reply']>;

describe('the catalog, as types', () => {
  it('sorts every subject into exactly one kind', () => {
    expectTypeOf<StreamSubjectName>().toEqualTypeOf<
      'querySubmitted' | 'queryRouted' | 'requestEvents' | 'requestEnded' | 'messagingInbound'
    >();
    expectTypeOf<RequestSubjectName>().toEqualTypeOf<
      'toolValidate' | 'toolExecute' | 'toolsList' | 'toolsContainers' | 'answerBlocks' | 'healthPing'
    >();
    expectTypeOf<BroadcastSubjectName>().toEqualTypeOf<
      'toolsChanged' | 'intentsChanged' | 'llmConfigChanged' | 'toolPinChanged'
    >();
    expectTypeOf<
      StreamSubjectName | RequestSubjectName | BroadcastSubjectName
    >().toEqualTypeOf<SubjectName>();
  });

  it('gives each subject the data type its module exports', () => {
    expectTypeOf<DataOf<'querySubmitted'>>().toEqualTypeOf<QuerySubmitted>();
    expectTypeOf<DataOf<'queryRouted'>>().toEqualTypeOf<QueryRouted>();
    expectTypeOf<DataOf<'requestEvents'>>().toEqualTypeOf<AgentEvent>();
    expectTypeOf<DataOf<'toolValidate'>>().toEqualTypeOf<ValidateRequest>();
    expectTypeOf<DataOf<'toolExecute'>>().toEqualTypeOf<ExecuteRequest>();
  });

  it('gives each request subject its reply type', () => {
    expectTypeOf<ReplyOf<'toolValidate'>>().toEqualTypeOf<ValidationResult>();
    expectTypeOf<ReplyOf<'toolExecute'>>().toEqualTypeOf<ExecutionResult>();
    expectTypeOf<ReplyOf<'toolsList'>>().toEqualTypeOf<ToolList>();
  });

  it('puts data inside the envelope', () => {
    expectTypeOf<Message<QuerySubmitted>['data']>().toEqualTypeOf<QuerySubmitted>();
    expectTypeOf<Message<QuerySubmitted>>().toHaveProperty('requestId').toEqualTypeOf<string>();
    expectTypeOf<Message<QuerySubmitted>>().toHaveProperty('entityId').toEqualTypeOf<string>();
    expectTypeOf<Message<QuerySubmitted>>().toHaveProperty('orgId').toEqualTypeOf<string>();
  });

  it('narrows an event by its type', () => {
    type Chunk = Extract<AgentEvent, { type: 'response_chunk' }>;
    expectTypeOf<Chunk['payload']>().toHaveProperty('text').toEqualTypeOf<string>();
  });
});

describe('CodedError', () => {
  it('carries a code of the one enum', () => {
    const error = new CodedError('TOOL_FAILED', 'the books refused', { cause: new Error('500') });
    expectTypeOf(error.code).toEqualTypeOf<ErrorCode>();
    // @ts-expect-error: a code outside the enum does not compile
    new CodedError('NOT_A_CODE', 'x');
    if (!(error instanceof Error) || error.code !== 'TOOL_FAILED' || !(error.cause instanceof Error))
      throw new Error('CodedError lost its code or cause');
  });
});
