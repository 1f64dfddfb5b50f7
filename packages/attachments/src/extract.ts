import { Worker } from 'node:worker_threads';
import * as XLSX from '@e965/xlsx';
import type { AttachmentMimeType, ExtractionStatus } from '@munim/contracts';
import type { ExtractionDetails } from '@munim/db';
import { parse as parseCsv } from 'csv-parse/sync';
import mammoth from 'mammoth';
import { getDocumentProxy, extractText as pdfText } from 'unpdf';
import { type ArchiveRefusal, ArchiveRefusedError } from './errors.ts';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-guard.ts';

export interface ExtractionLimits {
  /** Characters of text kept; the rest is cut and `truncated` set. */
  maxChars: number;
  /** Data rows of a spreadsheet or CSV kept. */
  maxRows: number;
  /** Pages of a PDF read. */
  maxPages: number;
}

export const DEFAULT_LIMITS: ExtractionLimits = { maxChars: 100_000, maxRows: 2_000, maxPages: 100 };

export interface Extraction {
  status: ExtractionStatus;
  text: string | null;
  error: string | null;
  details: ExtractionDetails;
}

type Cell = string | number | boolean | null | undefined;

function cellText(cell: Cell): string {
  return String(cell ?? '')
    .replace(/\s+/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

/** A sheet as a compact text table: a title line, the header, then one line per data row. */
function renderTable(title: string, rows: Cell[][], maxRows: number): { text: string; rows: number } {
  const filled = rows.filter((row) => row.some((cell) => cellText(cell) !== ''));
  const [header, ...data] = filled;
  if (!header) return { text: `${title}: empty`, rows: 0 };
  const shown = data.slice(0, maxRows);
  const lines = [
    `${title}: ${data.length} data rows; columns: ${header.map(cellText).join(' | ')}`,
    header.map(cellText).join(' | '),
    ...shown.map((row) => row.map(cellText).join(' | ')),
  ];
  if (data.length > shown.length) lines.push(`… ${data.length - shown.length} more rows not shown`);
  return { text: lines.join('\n'), rows: data.length };
}

function cap(text: string, maxChars: number): { text: string; truncated: boolean } {
  const trimmed = text.replace(/\n{3,}/g, '\n\n').trim();
  if (trimmed.length <= maxChars) return { text: trimmed, truncated: false };
  return { text: `${trimmed.slice(0, maxChars)}\n… (cut at ${maxChars} characters)`, truncated: true };
}

async function read(
  bytes: Uint8Array,
  mimeType: AttachmentMimeType,
  limits: ExtractionLimits,
): Promise<{ text: string; details: ExtractionDetails } | null> {
  switch (mimeType) {
    case 'image/jpeg':
    case 'image/png':
    case 'image/webp':
    case 'image/gif':
      return null;
    case 'text/plain':
      return { text: new TextDecoder().decode(bytes).replace(/^\uFEFF/, ''), details: {} };
    case 'text/csv': {
      const records = parseCsv(Buffer.from(bytes), {
        bom: true,
        delimiter: [',', ';', '\t'],
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: true,
      }) as string[][];
      const table = renderTable('CSV', records, limits.maxRows);
      return {
        text: table.text,
        details: {
          rows: table.rows,
          columns: (records[0] ?? []).map(cellText),
          truncated: table.rows > limits.maxRows,
        },
      };
    }
    case 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet':
    case 'application/vnd.ms-excel': {
      const workbook = XLSX.read(bytes, { type: 'buffer', dense: true, cellFormula: false, cellHTML: false });
      const parts: string[] = [];
      let total = 0;
      let columns: string[] | undefined;
      for (const name of workbook.SheetNames) {
        const sheet = workbook.Sheets[name];
        if (!sheet) continue;
        const rows = XLSX.utils.sheet_to_json<Cell[]>(sheet, {
          header: 1,
          raw: false,
          defval: '',
          blankrows: false,
        });
        const table = renderTable(`Sheet "${name}"`, rows, Math.max(0, limits.maxRows - total));
        columns ??= rows[0]?.map(cellText);
        total += table.rows;
        parts.push(table.text);
      }
      return {
        text: parts.join('\n\n'),
        details: {
          rows: total,
          sheets: workbook.SheetNames,
          ...(columns ? { columns } : {}),
          truncated: total > limits.maxRows,
        },
      };
    }
    case 'application/pdf': {
      // The worker thread that runs this ends afterwards, releasing the document with it.
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      const { totalPages, text } = await pdfText(pdf, { mergePages: false });
      const pages = text.slice(0, limits.maxPages);
      return {
        text: pages.map((page, i) => `[Page ${i + 1}]\n${page.trim()}`).join('\n\n'),
        details: { pages: totalPages, truncated: totalPages > pages.length },
      };
    }
    case 'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
      const result = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
      return { text: result.value, details: {} };
    }
  }
}

/** Reads the text of a file with the type's parser; a failure is recorded, never thrown. */
export async function extract(
  bytes: Uint8Array,
  mimeType: AttachmentMimeType,
  limits: ExtractionLimits = DEFAULT_LIMITS,
): Promise<Extraction> {
  try {
    const result = await read(bytes, mimeType, limits);
    if (!result) return { status: 'skipped', text: null, error: null, details: {} };
    const capped = cap(result.text, limits.maxChars);
    return {
      status: 'done',
      text: capped.text,
      error: null,
      details: { ...result.details, truncated: capped.truncated || result.details.truncated === true },
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      status: 'failed',
      text: null,
      error: `could not read the file: ${message.slice(0, 300)}`,
      details: {},
    };
  }
}

export interface WorkerBounds {
  timeoutMs: number;
  /** Heap of the parser's thread: a decompression bomb ends there, not in the service. */
  maxMemoryMb: number;
}

export const DEFAULT_BOUNDS: WorkerBounds = { timeoutMs: 20_000, maxMemoryMb: 512 };

/** What the extraction worker posts back: the extraction, or why the archive was not parsed. */
export type WorkerReply = Extraction | { refused: { reason: ArchiveRefusal; message: string } };

/**
 * Extraction in a worker thread, so a large or hostile file neither blocks the service's event
 * loop nor outgrows the bounds: past the timeout or the heap limit the thread is ended and the
 * attempt recorded as failed. A zip-based file is first decompressed there without being kept, to
 * prove its declared sizes; one that breaks `zipLimits` rejects with an ArchiveRefusedError.
 */
export function extractInWorker(
  bytes: Uint8Array,
  mimeType: AttachmentMimeType,
  limits: ExtractionLimits = DEFAULT_LIMITS,
  bounds: WorkerBounds = DEFAULT_BOUNDS,
  zipLimits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<Extraction> {
  if (mimeType.startsWith('image/'))
    return Promise.resolve({ status: 'skipped', text: null, error: null, details: {} });
  return new Promise((resolve, reject) => {
    const failed = (error: string): Extraction => ({ status: 'failed', text: null, error, details: {} });
    const worker = new Worker(new URL('./extract-worker.ts', import.meta.url), {
      workerData: { bytes, mimeType, limits, zipLimits },
      resourceLimits: { maxOldGenerationSizeMb: bounds.maxMemoryMb },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (value: WorkerReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if ('refused' in value) reject(new ArchiveRefusedError(value.refused.reason, value.refused.message));
      else resolve(value);
    };
    const timer = setTimeout(
      () => settle(failed(`could not read the file within ${Math.round(bounds.timeoutMs / 1000)} s`)),
      bounds.timeoutMs,
    );
    worker.once('message', (value: WorkerReply) => settle(value));
    worker.once('error', (error) =>
      settle(
        failed(
          (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? 'could not read the file within the memory limit'
            : `could not read the file: ${error.message.slice(0, 300)}`,
        ),
      ),
    );
    worker.once('exit', () => settle(failed('could not read the file: the reader stopped')));
  });
}
