// HTTP shapes of the gateway's API, one module per route family.
export * from './admin-analytics.ts';
export * from './admin-intents.ts';
export * from './admin-llm-configs.ts';
export * from './admin-tools.ts';
export * from './admin-users.ts';
export * from './approval-policy.ts';
export * from './approvals.ts';
export * from './attachments.ts';
export * from './audit.ts';
export * from './business-context.ts';
export * from './conversations.ts';
export * from './errors.ts';
export * from './health.ts';
export * from './metrics.ts';
export * from './query.ts';
export * from './suggestions.ts';
