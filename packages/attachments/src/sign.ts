import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type LinkCheck = 'ok' | 'expired' | 'invalid';

/**
 * HMAC-SHA256 signatures of download links (`?exp=<unix seconds>&sig=`): a link names one
 * attachment until one instant, and changing either breaks the signature.
 */
export class LinkSigner {
  readonly #key: Buffer;

  /** With no key, a random one: links then last only as long as this process (and only here). */
  constructor(key?: string | Buffer) {
    this.#key = key === undefined ? randomBytes(32) : Buffer.from(key);
  }

  sign(attachmentId: string, expiresAtSeconds: number): string {
    return createHmac('sha256', this.#key).update(`${attachmentId}.${expiresAtSeconds}`).digest('base64url');
  }

  verify(attachmentId: string, expiresAtSeconds: number, signature: string, nowMs = Date.now()): LinkCheck {
    const expected = Buffer.from(this.sign(attachmentId, expiresAtSeconds));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return expiresAtSeconds * 1000 <= nowMs ? 'expired' : 'ok';
  }
}
