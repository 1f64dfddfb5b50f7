import type { SampleFile } from '@munim/attachments/testing';

/** A multipart form with the given text fields and, when given, the file (under its declared type). */
export function form(fields: Record<string, string>, file?: SampleFile & { declared?: string }) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  if (file) {
    body.set('file', new Blob([new Uint8Array(file.bytes)], { type: file.declared ?? file.type }), file.name);
  }
  return body;
}

/** Follows an attachment link (relative to the gateway's URL) and reads its bytes. */
export async function download(base: string, link: string) {
  const res = await fetch(new URL(link, base));
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}
