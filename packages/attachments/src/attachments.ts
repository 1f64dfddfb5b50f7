import { createHash, randomUUID } from 'node:crypto';
import {
  ATTACHMENT_TYPES,
  ATTACHMENT_URL_TTL_SECONDS,
  type Attachment,
  type AttachmentCategory,
  type AttachmentMimeType,
} from '@munim/contracts';
import type { AttachmentsTable, Database } from '@munim/db';
import type { Kysely, Selectable } from 'kysely';
import { detectType } from './detect.ts';
import { DEFAULT_LIMITS, type ExtractionLimits, extractInWorker, type WorkerBounds } from './extract.ts';
import type { LinkSigner } from './sign.ts';
import { ExtractionSlots } from './slots.ts';
import { type AttachmentStorage, storageKey } from './storage.ts';
import { suggestMessage } from './suggest.ts';
import { checkZip, DEFAULT_ZIP_LIMITS, isZip, type ZipLimits } from './zip-guard.ts';

export type AttachmentRow = Selectable<AttachmentsTable>;

/** The entity and organisation an attachment belongs to. */
export interface Owner {
  entityId: string;
  orgId: string;
}

export interface Upload {
  bytes: Uint8Array;
  filename: string;
  /** The type the client declared (checked against the content). */
  declaredType: string;
  owner: Owner;
  conversationId?: string | undefined;
}

export interface AttachmentsDeps {
  db: Kysely<Database>;
  storage: AttachmentStorage;
  signer: LinkSigner;
  limits?: ExtractionLimits;
  bounds?: WorkerBounds;
  /** What a zip-based file (XLSX, DOCX) may expand to. */
  zipLimits?: ZipLimits;
  /** The process's extraction slots (default: 2 at once, 10 s wait). */
  slots?: ExtractionSlots;
}

const PREVIEW_CHARS = 300;
/** Longest file name kept; the extension is preserved. */
const MAX_FILENAME = 200;

/** A file name fit to store and show: no path, no control characters, bounded. */
function cleanFilename(name: string, fallback: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (!base || base === '.' || base === '..') return fallback;
  if (base.length <= MAX_FILENAME) return base;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 && base.length - dot <= 10 ? base.slice(dot) : '';
  return base.slice(0, MAX_FILENAME - ext.length) + ext;
}

/** Attachments of munim: checked, stored, read and described; every query is tenant-scoped. */
export class Attachments {
  readonly storage: AttachmentStorage;
  readonly #db: Kysely<Database>;
  readonly #signer: LinkSigner;
  readonly #limits: ExtractionLimits;
  readonly #bounds: WorkerBounds | undefined;
  readonly #zipLimits: ZipLimits;
  readonly #slots: ExtractionSlots;

  constructor(deps: AttachmentsDeps) {
    this.#db = deps.db;
    this.storage = deps.storage;
    this.#signer = deps.signer;
    this.#limits = deps.limits ?? DEFAULT_LIMITS;
    this.#bounds = deps.bounds;
    this.#zipLimits = deps.zipLimits ?? DEFAULT_ZIP_LIMITS;
    this.#slots = deps.slots ?? new ExtractionSlots();
  }

  /**
   * Checks the type by content (throws UnsupportedTypeError) and, for a zip-based file, what it
   * expands to (throws ArchiveRefusedError); reads its text in one of the process's extraction
   * slots (throws ExtractionBusyError when none frees up in time), stores the bytes, then records
   * it. Extraction failures are recorded on the row, not thrown.
   */
  async upload(upload: Upload): Promise<AttachmentRow> {
    // Type detection reads at most a megabyte of a zip's entries (file-type's own bound), so it may go first.
    const type = await detectType(upload.bytes, upload.declaredType, upload.filename);
    if (isZip(upload.bytes)) await checkZip(upload.bytes, this.#zipLimits);
    const id = randomUUID();
    const filename = cleanFilename(
      upload.filename,
      `attachment.${ATTACHMENT_TYPES[type.mimeType].extensions[0]}`,
    );
    const read = () =>
      extractInWorker(upload.bytes, type.mimeType, this.#limits, this.#bounds, this.#zipLimits);
    // Images are not read (no worker), so they take no slot.
    const extraction = type.category === 'image' ? await read() : await this.#slots.run(read);
    const key = storageKey(id);
    await this.storage.put(key, upload.bytes, type.mimeType);
    try {
      return await this.#db
        .insertInto('attachments')
        .values({
          id,
          entity_id: upload.owner.entityId,
          org_id: upload.owner.orgId,
          conversation_id: upload.conversationId ?? null,
          filename,
          mime_type: type.mimeType,
          category: type.category,
          size_bytes: upload.bytes.byteLength,
          sha256: createHash('sha256').update(upload.bytes).digest('hex'),
          storage: this.storage.kind,
          storage_key: key,
          extraction_status: extraction.status,
          extracted_text: extraction.text,
          extraction_error: extraction.error,
          extraction_details: JSON.stringify(extraction.details),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (error) {
      // No row, no file: nothing is left behind that nobody can reach.
      await this.storage.delete(key).catch(() => undefined);
      throw error;
    }
  }

  /** One attachment of the owner; undefined when it does not exist or is another tenant's. */
  find(id: string, owner: Owner): Promise<AttachmentRow | undefined> {
    return this.#db
      .selectFrom('attachments')
      .selectAll()
      .where('id', '=', id)
      .where('entity_id', '=', owner.entityId)
      .where('org_id', '=', owner.orgId)
      .executeTakeFirst();
  }

  /** An attachment by id alone: only for a request that proved its right otherwise (a signed link). */
  findById(id: string): Promise<AttachmentRow | undefined> {
    return this.#db.selectFrom('attachments').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The owner's attachments among `ids`, in the order of `ids` (missing ones left out). */
  async findMany(ids: readonly string[], owner: Owner): Promise<AttachmentRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db
      .selectFrom('attachments')
      .selectAll()
      .where('id', 'in', [...ids])
      .where('entity_id', '=', owner.entityId)
      .where('org_id', '=', owner.orgId)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Scopes attachments that belong to no conversation yet to the one that first uses them. */
  async bindToConversation(ids: readonly string[], owner: Owner, conversationId: string): Promise<void> {
    if (ids.length === 0) return;
    await this.#db
      .updateTable('attachments')
      .set({ conversation_id: conversationId })
      .where('id', 'in', [...ids])
      .where('entity_id', '=', owner.entityId)
      .where('org_id', '=', owner.orgId)
      .where('conversation_id', 'is', null)
      .execute();
  }

  /** Deletes the record, then the bytes; false when there was no such attachment of the owner. */
  async remove(id: string, owner: Owner): Promise<boolean> {
    const row = await this.#db
      .deleteFrom('attachments')
      .where('id', '=', id)
      .where('entity_id', '=', owner.entityId)
      .where('org_id', '=', owner.orgId)
      .returning(['storage_key'])
      .executeTakeFirst();
    if (!row) return false;
    await this.storage.delete(row.storage_key);
    return true;
  }

  /** The stored bytes of an attachment. */
  content(row: AttachmentRow): Promise<Buffer> {
    return this.storage.get(row.storage_key);
  }

  /** A download link valid for 1 hour: the store's presigned GET, or a signed gateway path. */
  async link(row: AttachmentRow, nowMs = Date.now()): Promise<{ url: string; expiresAt: string }> {
    const expSeconds = Math.floor(nowMs / 1000) + ATTACHMENT_URL_TTL_SECONDS;
    const expiresAt = new Date(expSeconds * 1000).toISOString();
    const presigned = await this.storage.presignedUrl(
      { key: row.storage_key, mimeType: row.mime_type, filename: row.filename },
      ATTACHMENT_URL_TTL_SECONDS,
    );
    if (presigned) return { url: presigned, expiresAt };
    const sig = this.#signer.sign(row.id, expSeconds);
    return { url: `/v1/attachments/${row.id}/content?exp=${expSeconds}&sig=${sig}`, expiresAt };
  }

  /** Checks the `exp` and `sig` of a gateway download link. */
  checkLink(id: string, exp: number, sig: string) {
    return this.#signer.verify(id, exp, sig);
  }

  /** The API's view of an attachment, with a fresh link and the suggested message. */
  async view(row: AttachmentRow): Promise<Attachment> {
    const details = row.extraction_details;
    const text = row.extracted_text;
    return {
      id: row.id,
      filename: row.filename,
      mimeType: row.mime_type as AttachmentMimeType,
      category: row.category as AttachmentCategory,
      sizeBytes: Number(row.size_bytes),
      sha256: row.sha256,
      conversationId: row.conversation_id,
      createdAt: new Date(row.created_at).toISOString(),
      ...(await this.link(row)),
      extracted: {
        status: row.extraction_status,
        chars: text?.length ?? 0,
        truncated: details.truncated === true,
        ...(details.rows !== undefined ? { rows: details.rows } : {}),
        ...(details.pages !== undefined ? { pages: details.pages } : {}),
        ...(text ? { preview: text.slice(0, PREVIEW_CHARS) } : {}),
        ...(row.extraction_error ? { error: row.extraction_error } : {}),
      },
      suggestedMessage: suggestMessage({
        filename: row.filename,
        category: row.category,
        status: row.extraction_status,
        text,
        details,
      }),
    };
  }
}
