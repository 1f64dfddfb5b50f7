export * from './bus.ts';
export * from './connect.ts';
export * from './errors.ts';
export * from './trace.ts';
