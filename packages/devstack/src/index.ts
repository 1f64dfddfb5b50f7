export * from './embedded.ts';
export * from './stack.ts';
