import * as XLSX from '@e965/xlsx';
import { ATTACHMENT_TYPES, type AttachmentCategory, type AttachmentMimeType } from '@munim/contracts';
import { fileTypeFromBuffer } from 'file-type';
import { UnsupportedTypeError } from './errors.ts';

export interface DetectedType {
  mimeType: AttachmentMimeType;
  category: AttachmentCategory;
}

/** Spellings browsers and tools send for the accepted types. */
const ALIASES: Record<string, AttachmentMimeType> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'application/csv': 'text/csv',
  'text/comma-separated-values': 'text/csv',
  'application/x-pdf': 'application/pdf',
  'application/excel': 'application/vnd.ms-excel',
  'application/x-excel': 'application/vnd.ms-excel',
  'text/markdown': 'text/plain',
};

/** Declared types that say nothing about the content. */
const UNSPECIFIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

function isAccepted(mime: string): mime is AttachmentMimeType {
  return Object.hasOwn(ATTACHMENT_TYPES, mime);
}

function canonical(declared: string): string {
  const bare = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  return ALIASES[bare] ?? bare;
}

function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? '' : filename.slice(dot + 1).toLowerCase();
}

/** Text a person could have written: valid UTF-8 with no control characters but tab, CR, LF and FF. */
function isText(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  return !/[\u0000-\u0008\u000B\u000E-\u001F\u007F]/.test(text);
}

/** An OLE compound file is an XLS only when it holds a workbook stream (a .doc or .msg does not). */
function isLegacyWorkbook(bytes: Uint8Array): boolean {
  try {
    const container = XLSX.CFB.read(bytes, { type: 'buffer' });
    return ['Workbook', 'Book'].some((name) => XLSX.CFB.find(container, name) != null);
  } catch {
    return false;
  }
}

/** Declared types that may differ from the content's without contradicting it. */
function compatible(declared: string, actual: AttachmentMimeType): boolean {
  if (declared.startsWith('text/') && actual.startsWith('text/')) return true;
  // Windows browsers send .csv files as application/vnd.ms-excel.
  return declared === 'application/vnd.ms-excel' && actual === 'text/csv';
}

/**
 * The type of an upload, decided by its content (magic bytes, or valid UTF-8 text for CSV and
 * plain text), never by the client's word alone: content of another type, or content that
 * contradicts a specific declared type, is refused.
 */
export async function detectType(
  bytes: Uint8Array,
  declaredType: string,
  filename: string,
): Promise<DetectedType> {
  const declared = canonical(declaredType);
  const extension = extensionOf(filename);
  const sniffed = await fileTypeFromBuffer(bytes);
  let mimeType: AttachmentMimeType;
  if (sniffed) {
    const mime =
      sniffed.mime === 'application/x-cfb' && isLegacyWorkbook(bytes)
        ? 'application/vnd.ms-excel'
        : sniffed.mime;
    if (!isAccepted(mime)) {
      throw new UnsupportedTypeError(`the content is ${mime}, which is not an accepted type`);
    }
    mimeType = mime;
  } else if (isText(bytes)) {
    // CSV and plain text have no signature: the declared type or the extension tells them apart.
    mimeType = declared === 'text/csv' || extension === 'csv' ? 'text/csv' : 'text/plain';
  } else {
    throw new UnsupportedTypeError('the content is not of an accepted type');
  }
  if (!UNSPECIFIC.has(declared) && declared !== mimeType && !compatible(declared, mimeType)) {
    throw new UnsupportedTypeError(`declared as ${declared} but the content is ${mimeType}`);
  }
  return { mimeType, category: ATTACHMENT_TYPES[mimeType].category };
}
