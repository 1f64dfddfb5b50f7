import { requestEnded, requestEvents } from './subjects/events.ts';
import { healthPing } from './subjects/health.ts';
import { intentsChanged } from './subjects/intents.ts';
import { llmConfigChanged } from './subjects/llm-configs.ts';
import { messagingInbound } from './subjects/messaging.ts';
import { queryRouted, querySubmitted } from './subjects/query.ts';
import { toolsChanged } from './subjects/registry.ts';
import { toolPinChanged } from './subjects/tool-pins.ts';
import { toolExecute, toolsList, toolValidate } from './subjects/tools.ts';
import { answerBlocks, toolsContainers } from './subjects/validator.ts';

/** Every subject of the system. A service names subjects only through this catalog. */
export const catalog = {
  querySubmitted,
  queryRouted,
  requestEvents,
  requestEnded,
  toolValidate,
  toolExecute,
  toolsList,
  toolsChanged,
  intentsChanged,
  llmConfigChanged,
  toolPinChanged,
  toolsContainers,
  answerBlocks,
  healthPing,
  messagingInbound,
} as const;
export type Catalog = typeof catalog;
export type SubjectName = keyof Catalog;
export type StreamSubjectName = {
  [K in SubjectName]: Catalog[K]['kind'] extends 'stream' ? K : never;
}[SubjectName];
export type RequestSubjectName = {
  [K in SubjectName]: Catalog[K]['kind'] extends 'request' ? K : never;
}[SubjectName];
export type BroadcastSubjectName = {
  [K in SubjectName]: Catalog[K]['kind'] extends 'broadcast' ? K : never;
}[SubjectName];
