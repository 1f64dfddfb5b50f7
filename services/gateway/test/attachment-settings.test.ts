import { describe, expect, it } from 'vitest';
import { loadEnv } from '../src/env.ts';

describe('attachment configuration', () => {
  it('names a bad variable, never echoing a secret', () => {
    expect(() => loadEnv({ ATTACHMENTS_S3_ENDPOINT: 'minio:9000' })).toThrow(/ATTACHMENTS_S3_ENDPOINT/);
    expect(() => loadEnv({ ATTACHMENTS_MAX_BYTES: '-1' })).toThrow(/ATTACHMENTS_MAX_BYTES/);
    expect(() => loadEnv({ ATTACHMENTS_SIGNING_KEY: 'short' })).toThrow(/ATTACHMENTS_SIGNING_KEY/);
    expect(() => loadEnv({ ATTACHMENTS_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      /ATTACHMENTS_S3_FORCE_PATH_STYLE/,
    );
    let message = '';
    try {
      loadEnv({ ATTACHMENTS_S3_BUCKET: 'files', ATTACHMENTS_S3_SECRET_ACCESS_KEY: 'very-secret-value' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      'ATTACHMENTS_S3_ACCESS_KEY_ID: is required with ATTACHMENTS_S3_SECRET_ACCESS_KEY',
    );
    expect(message).not.toContain('very-secret-value');
  });
});
