export * from './canonical.ts';
export * from './env.ts';
export * from './health.ts';
export * from './lifecycle.ts';
export * from './log.ts';
export * from './telemetry.ts';
export * from './tool-catalog.ts';
export * from './tool-groups.ts';
