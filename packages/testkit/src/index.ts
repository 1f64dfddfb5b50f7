export { natsUrl, newScope, recordEvents, TestNats } from '@munim/bus/testing';
export { createMigratedTestDatabase, createTestDatabase, type TestDatabase } from '@munim/db/testing';
export { test } from './fixtures.ts';
export { FixtureNats } from './nats.ts';
export { freePort } from './ports.ts';
export * from './whatsapp.ts';
