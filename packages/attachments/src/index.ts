export * from './attachments.ts';
export * from './config.ts';
export * from './detect.ts';
export * from './errors.ts';
export * from './extract.ts';
export * from './sign.ts';
export * from './storage.ts';
export * from './suggest.ts';
