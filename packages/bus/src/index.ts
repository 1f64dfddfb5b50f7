export * from './bus.ts';
export * from './connect.ts';
export { type ConsumeOptions, PULL_EXPIRES_MS, type RunningConsumer } from './consumers.ts';
export * from './errors.ts';
export { eventsOf, type ParsedEvents, type SequencedEvent } from './events.ts';
export type { FollowedEvent, Following } from './follow.ts';
export type { ServeContext, Served, ServeHandler } from './request-reply.ts';
export { DEFAULT_EVENTS_MAX_AGE_MS, type DurableOptions, type StreamSettings } from './streams.ts';
export * from './tracing.ts';
