// Real files of every accepted type, made on the spot by independent writers, and a real
// S3-compatible server, for tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync, constants as zlibConstants } from 'node:zlib';
import S3rver from '@20minutes/s3rver';
import * as XLSX from '@e965/xlsx';
import type { AttachmentCategory, AttachmentMimeType } from '@munim/contracts';
import { Document, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import ExcelJS from 'exceljs';
import { strToU8, Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import jpeg from 'jpeg-js';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { PNG } from 'pngjs';

export interface SampleFile {
  bytes: Buffer;
  name: string;
  type: string;
}

/** Invoice rows used by the spreadsheet and CSV samples. */
export const INVOICE_ROWS = [
  ['Invoice', 'Customer', 'Date', 'Amount'],
  ['INV-9001', 'Acme Corp', '2026-04-01', 12500],
  ['INV-9002', 'Globex Traders', '2026-04-03', 8300],
  ['INV-9003', 'Initech Supplies', '2026-04-07', 4150.5],
] as const;

/** A one-page PDF with the given lines of text (pdf-lib, standard font). */
export async function makePdf(lines: readonly string[], name = 'statement.pdf'): Promise<SampleFile> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  lines.forEach((line, index) => {
    page.drawText(line, { x: 50, y: 790 - index * 20, size: 12, font });
  });
  return { bytes: Buffer.from(await doc.save()), name, type: 'application/pdf' };
}

/** An XLSX workbook of invoice rows (exceljs). */
export async function makeXlsx(
  rows: readonly (readonly (string | number)[])[] = INVOICE_ROWS,
  name = 'sales.xlsx',
): Promise<SampleFile> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Invoices');
  for (const row of rows) sheet.addRow([...row]);
  const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
  return { bytes, name, type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };
}

/** A legacy Excel 97-2003 (BIFF8) workbook (SheetJS writer). */
export function makeXls(
  rows: readonly (readonly (string | number)[])[] = INVOICE_ROWS,
  name = 'legacy.xls',
): SampleFile {
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(rows.map((row) => [...row])), 'Invoices');
  const bytes = Buffer.from(XLSX.write(workbook, { type: 'buffer', bookType: 'biff8' }) as Uint8Array);
  return { bytes, name, type: 'application/vnd.ms-excel' };
}

/** A Word document with a heading paragraph and a small table (docx). */
export async function makeDocx(paragraphs: readonly string[], name = 'contract.docx'): Promise<SampleFile> {
  const doc = new Document({
    sections: [
      {
        children: [
          ...paragraphs.map((text) => new Paragraph({ children: [new TextRun(text)] })),
          new Table({
            rows: [
              ['Item', 'Price'],
              ['Consulting', '45000'],
            ].map(
              (cells) =>
                new TableRow({
                  children: cells.map((text) => new TableCell({ children: [new Paragraph(text)] })),
                }),
            ),
          }),
        ],
      },
    ],
  });
  const bytes = await Packer.toBuffer(doc);
  return {
    bytes: Buffer.from(bytes),
    name,
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  };
}

export function makeCsv(
  rows: readonly (readonly (string | number)[])[] = INVOICE_ROWS,
  name = 'payments.csv',
): SampleFile {
  const text = rows
    .map((row) => row.map((cell) => (/[",\n]/.test(String(cell)) ? `"${cell}"` : String(cell))).join(','))
    .join('\n');
  return { bytes: Buffer.from(`${text}\n`), name, type: 'text/csv' };
}

export function makeText(text: string, name = 'notes.txt'): SampleFile {
  return { bytes: Buffer.from(text), name, type: 'text/plain' };
}

/** A small PNG: a red square with a blue stripe (pngjs). */
export function makePng(name = 'receipt.png', size = 16): SampleFile {
  const png = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (size * y + x) << 2;
      const stripe = y >= size / 2 - 2 && y < size / 2 + 2;
      png.data[i] = stripe ? 0 : 220;
      png.data[i + 1] = 20;
      png.data[i + 2] = stripe ? 230 : 30;
      png.data[i + 3] = 255;
    }
  }
  return { bytes: PNG.sync.write(png), name, type: 'image/png' };
}

/** A small JPEG: a grey gradient (jpeg-js encoder). */
export function makeJpeg(name = 'photo.jpg', size = 16): SampleFile {
  const data = Buffer.alloc(size * size * 4);
  for (let i = 0; i < size * size; i++) {
    const shade = Math.round((i / (size * size)) * 255);
    data.writeUInt32BE(((shade << 24) | (shade << 16) | (shade << 8) | 0xff) >>> 0, i * 4);
  }
  const encoded = jpeg.encode({ data, width: size, height: size }, 80);
  return { bytes: Buffer.from(encoded.data), name, type: 'image/jpeg' };
}

/** A ZIP archive with a Windows executable's header inside, to be refused whatever it is called. */
export function makeDisguisedExe(name = 'invoice.pdf'): SampleFile {
  const bytes = Buffer.alloc(256);
  bytes.write('MZ', 0, 'latin1');
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write('PE\0\0', 0x80, 'latin1');
  return { bytes, name, type: 'application/pdf' };
}

export interface TestS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** The env that points attachments at this server. */
  env: Record<string, string>;
  /** Keys of the objects in the bucket under a prefix, listed over the S3 protocol. */
  keys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** A real S3-compatible server on loopback (s3rver, files in a temp directory) with one bucket. */
export async function startTestS3(bucket = 'munim-attachments'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'munim-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      ATTACHMENTS_S3_BUCKET: bucket,
      ATTACHMENTS_S3_ENDPOINT: endpoint,
      ATTACHMENTS_S3_ACCESS_KEY_ID: 'S3RVER',
      ATTACHMENTS_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async keys(prefix = '') {
      const xml = await (
        await fetch(`${endpoint}/${bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`)
      ).text();
      return [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1] ?? '');
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A 1×1 GIF89a, byte by byte: header, screen descriptor, two-colour palette, one LZW-coded pixel. */
export function makeGif(name = 'pixel.gif'): SampleFile {
  const parts = [
    '474946383961', // GIF89a
    '01000100800000', // 1×1, a global palette of 2 colours
    'ff0000000000', // red, black
    '2c000000000100010000', // image descriptor
    '0202440100', // LZW minimum code size 2, one data block
    '3b', // trailer
  ];
  return { bytes: Buffer.from(parts.join(''), 'hex'), name, type: 'image/gif' };
}

/** A 1×1 lossless WebP: a RIFF container with one VP8L chunk. */
export function makeWebp(name = 'pixel.webp'): SampleFile {
  const bytes = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
  return { bytes, name, type: 'image/webp' };
}

/** A sample file of an accepted type, and the type and category it must be recognised as. */
export interface TypedSample {
  file: SampleFile;
  mimeType: AttachmentMimeType;
  category: AttachmentCategory;
}

/** One sample of every accepted type, each under its own file name. */
export async function samplesOfEveryType(): Promise<TypedSample[]> {
  return [
    {
      file: await makePdf(['Tax invoice INV-7781', 'Total payable 18,880'], 'invoice-7781.pdf'),
      mimeType: 'application/pdf',
      category: 'pdf',
    },
    {
      file: await makeXlsx(),
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      category: 'spreadsheet',
    },
    { file: makeXls(), mimeType: 'application/vnd.ms-excel', category: 'spreadsheet' },
    {
      file: await makeDocx(['Service agreement with Acme Corp']),
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      category: 'document',
    },
    { file: makeCsv(), mimeType: 'text/csv', category: 'spreadsheet' },
    { file: makeText('Call Acme about the April payment'), mimeType: 'text/plain', category: 'document' },
    { file: makePng(), mimeType: 'image/png', category: 'image' },
    { file: makeJpeg(), mimeType: 'image/jpeg', category: 'image' },
    { file: makeGif(), mimeType: 'image/gif', category: 'image' },
    { file: makeWebp(), mimeType: 'image/webp', category: 'image' },
  ];
}

const MIB = 1024 * 1024;

/** A zip entry given already deflated, declaring whatever size and CRC it is told to. */
class DeflatedEntry extends ZipPassThrough {
  readonly #data: Uint8Array<ArrayBuffer>;
  constructor(name: string, data: Uint8Array<ArrayBuffer>, size: number, crc: number) {
    super(name);
    this.compression = 8;
    this.size = size;
    this.crc = crc;
    this.#data = data;
  }

  /** Writes the data; call once the entry is added to an archive. */
  write(): void {
    this.process(this.#data, true);
  }
}

/**
 * `mib` mebibytes of zeros as one raw deflate stream: one fully flushed deflated mebibyte repeated
 * (a full flush ends each copy on a byte boundary with no reference back), then a final empty
 * block; about a kilobyte on disk per mebibyte. Returns the stream, the true size and its CRC.
 */
function deflatedZeros(mib: number): { data: Uint8Array<ArrayBuffer>; size: number; crc: number } {
  const zeros = Buffer.alloc(MIB);
  const segment = deflateRawSync(zeros, { level: 9, finishFlush: zlibConstants.Z_FULL_FLUSH });
  const data = new Uint8Array(segment.length * mib + 2);
  let crc = 0;
  for (let i = 0; i < mib; i++) {
    data.set(segment, i * segment.length);
    crc = crc32(zeros, crc);
  }
  data.set([0x03, 0x00], segment.length * mib);
  return { data, size: mib * MIB, crc };
}

const OOXML_PARTS = {
  xlsx: {
    main: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    start: 'xl/workbook.xml',
    big: (i: number) => `xl/worksheets/sheet${i + 1}.xml`,
  },
  docx: {
    main: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    start: 'word/document.xml',
    big: (i: number) => (i === 0 ? 'word/document.xml' : `word/media/part${i}.xml`),
  },
} as const;

export interface ZipBombOptions {
  /** The package it looks like (its content types and part names). */
  shape?: 'xlsx' | 'docx';
  /** Entries of zeros. */
  entries?: number;
  /** What each entry of zeros expands to, in MiB. */
  entryMib?: number;
  /**
   * The size each entry of zeros declares in the central directory; unset: the truth. A smaller
   * one is the lie a central-directory check alone would believe.
   */
  declaredBytes?: number;
}

/**
 * An XLSX- or DOCX-shaped zip bomb, written with fflate: the package's content types and
 * relationships, then entries of zeros that expand to `entries × entryMib` MiB (by default two of
 * 1 GiB: 2 GiB from about 2 MB).
 */
export function makeZipBomb(options: ZipBombOptions = {}): SampleFile {
  const { shape = 'xlsx', entries = 2, entryMib = 1024 } = options;
  const parts = OOXML_PARTS[shape];
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  const small = (name: string, text: string) => {
    const file = new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(strToU8(text), true);
  };
  small(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/${parts.start}" ContentType="${parts.main}"/></Types>`,
  );
  small(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${parts.start}"/></Relationships>`,
  );
  const zeros = deflatedZeros(entryMib);
  for (let i = 0; i < entries; i++) {
    const entry = new DeflatedEntry(parts.big(i), zeros.data, options.declaredBytes ?? zeros.size, zeros.crc);
    zip.add(entry);
    entry.write();
  }
  zip.end();
  return { bytes: Buffer.concat(chunks), name: `bomb.${shape}`, type: parts.type };
}
