export * from './db.ts';
export * from './llm-config-keys.ts';
export * from './migrate.ts';
export * from './quotas.ts';
export * from './schema.ts';
export * from './secrets.ts';
export * from './seed/intents.ts';
export * from './suggestions.ts';
