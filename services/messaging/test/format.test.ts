// Properties of the phone rendering over generated answers: the text limit, no markdown syntax,
// figures verbatim, rows counted, the CSV document, and texts that add up to the whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forPhone } from '../src/format/for-phone.ts';
import { joinBlocks, render } from '../src/format/render.ts';

const inr = new Intl.NumberFormat('en-IN', {
  style: 'currency',
  currency: 'INR',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** Figures as the renderers and the model write them: ₹ in Indian grouping, negatives, %, lakh and crore. */
const figure = fc.oneof(
  fc.integer({ min: -99_99_99_999_99, max: 99_99_99_999_99 }).map((paise) => inr.format(paise / 100)),
  fc.integer({ min: 0, max: 9999 }).map((n) => `${(n / 10).toFixed(1)}%`),
  fc
    .tuple(fc.integer({ min: 1, max: 9999 }), fc.constantFrom('lakh', 'crore'))
    .map(([n, w]) => `${(n / 100).toFixed(2)} ${w}`),
  fc.integer({ min: 1, max: 400 }).map(String),
);
const WORDS = [
  'Acme',
  'Corp',
  'Sharma',
  'Traders',
  'Pvt',
  'Ltd',
  'Singh',
  '&',
  'Sons',
  'INV-0042',
  'Overdue',
  'Paid',
  'बकाया',
  'चालान',
  'ग्राहक',
  'कुल',
  'राशि',
  'हिसाब',
  'Kya',
  'bhej',
  'doon?',
  '📈',
  '👍🏽',
];
const word = fc.constantFrom(...WORDS);
const phrase = fc.array(word, { minLength: 1, maxLength: 5 }).map((ws) => ws.join(' '));
const cellText = fc.oneof(figure, phrase, fc.constant(''));

interface Table {
  head: string[];
  rows: string[][];
  /** Which cells are written in bold. */
  bold: boolean[][];
}

const table = (maxRows: number): fc.Arbitrary<Table> =>
  fc.integer({ min: 1, max: 6 }).chain((width) =>
    fc
      .record({
        head: fc.array(phrase, { minLength: width, maxLength: width }),
        rows: fc.array(fc.array(cellText, { minLength: width, maxLength: width }), { maxLength: maxRows }),
        boldLast: fc.boolean(),
      })
      .map(({ head, rows, boldLast }) => ({
        head,
        rows,
        // Totals rows are bold throughout, as the renderers write them.
        bold: rows.map((r, i) => r.map((c) => boldLast && i === rows.length - 1 && c !== '')),
      })),
  );

function tableMarkdown(t: Table): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(t.head),
    line(t.head.map(() => '---')),
    ...t.rows.map((r, i) => line(r.map((c, j) => (t.bold[i]?.[j] ? `**${c}**` : c)))),
  ].join('\n');
}

const sentence = fc
  .array(
    fc.oneof(
      word,
      figure,
      figure.map((f) => `**${f}**`),
      phrase.map((p) => `_${p}_`),
      phrase.map((p) => `\`${p}\``),
      phrase.map((p) => `[${p}](https://books.example/r/42)`),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((parts) => `${parts.join(' ')}.`);
const CARD_SECRET = 'CARD-SECRET-7d1';
const block = fc.oneof(
  sentence,
  phrase.map((p) => `### ${p}`),
  fc.array(sentence, { minLength: 1, maxLength: 6 }).map((items) => items.map((s) => `- ${s}`).join('\n')),
  fc
    .array(sentence, { minLength: 1, maxLength: 6 })
    .map((items) => items.map((s, i) => `${i + 1}. ${s}`).join('\n')),
  sentence.map((s) => `> ${s}`),
  figure.map((f) => `\`\`\`card\n{"title": "${CARD_SECRET}", "amount": "${f}"}\n\`\`\``),
  table(14).map(tableMarkdown),
  fc
    .array(fc.oneof(phrase, figure), { minLength: 1, maxLength: 30 })
    .map((ls) => `\`\`\`\n${ls.join('\n')}\n\`\`\``),
  // A word too long for any text: cut between graphemes.
  fc.array(word, { minLength: 20, maxLength: 60 }).map((ws) => ws.join('')),
);
const answer = fc.array(block, { minLength: 1, maxLength: 12 }).map((bs) => bs.join('\n\n'));

/** Whether `texts`, in order, are `whole` cut at points where only whitespace is dropped. */
function isCutOf(texts: string[], whole: string): boolean {
  let at = 0;
  for (const [i, raw] of texts.entries()) {
    const text = i === 0 ? raw : raw.trimStart();
    if (i > 0) while (at < whole.length && /\s/.test(whole[at] ?? '')) at++;
    if (!whole.startsWith(text, at)) return false;
    at += text.length;
  }
  return whole.slice(at).trim() === '';
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TABLE_SYNTAX = /^\s*\|.*\|\s*$|\|\s*:?-{3,}/m;

describe('forPhone over generated answers', () => {
  it('every text fits the limit in UTF-16 code units, is not empty, cuts no surrogate pair and no monospace run', () => {
    fc.assert(
      fc.property(answer, fc.integer({ min: 2, max: 600 }), (md, maxChars) => {
        const { texts } = forPhone(md, { maxChars });
        for (const t of texts) {
          expect(t.length).toBeLessThanOrEqual(maxChars);
          expect(t.trim()).not.toBe('');
          expect(t).not.toMatch(LONE_SURROGATE);
          // No monospace run is left open for the next text.
          expect((t.match(/```/g)?.length ?? 0) % 2).toBe(0);
        }
      }),
    );
  });

  it('the texts are the unsplit rendering cut where only whitespace is dropped', () => {
    fc.assert(
      fc.property(answer, fc.integer({ min: 2, max: 600 }), (md, maxChars) => {
        const opts = { maxChars, maxRows: 10, documentRows: 25 };
        const whole = joinBlocks(render(md, opts).blocks);
        expect(isCutOf(forPhone(md, opts).texts, whole)).toBe(true);
      }),
    );
  });

  it('cuts at paragraphs when every paragraph fits, at lines when every line fits', () => {
    fc.assert(
      fc.property(answer, fc.integer({ min: 40, max: 2000 }), (md, maxChars) => {
        const opts = { maxChars, maxRows: 10, documentRows: 25 };
        const { blocks } = render(md, opts);
        const whole = joinBlocks(blocks);
        const texts = forPhone(md, opts).texts;
        const blocksFit = blocks.every((b) => b.join('\n').length <= maxChars);
        const linesFit = blocks.flat().every((l) => l.length <= maxChars);
        let at = 0;
        for (const t of texts.slice(0, -1)) {
          at = whole.indexOf(t.trimStart(), at) + t.trimStart().length;
          const cut = /^\s*/.exec(whole.slice(at))?.[0] ?? '';
          if (blocksFit) expect(cut).toMatch(/^\n\n/);
          else if (linesFit) expect(cut).toMatch(/^\n/);
        }
      }),
    );
  });

  it('shows no markdown syntax: no table rows or rules, no **, nothing of a card block', () => {
    fc.assert(
      fc.property(answer, fc.integer({ min: 20, max: 4096 }), (md, maxChars) => {
        const out = forPhone(md, { maxChars }).texts.join('\n');
        expect(out).not.toMatch(TABLE_SYNTAX);
        expect(out).not.toContain('**');
        expect(out).not.toContain('```card');
        expect(out).not.toContain(CARD_SECRET);
        expect(out).not.toMatch(/^#{1,6} /m);
        expect(out).not.toMatch(/\]\(https?:/);
      }),
    );
  });

  it('an empty or blank answer, or one of UI blocks only, gives no texts', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ \t\r\n]*$/), (blank) => {
        expect(forPhone(blank)).toEqual({ texts: [] });
        expect(forPhone(`${blank}\`\`\`card\n{"a": 1}\n\`\`\`${blank}`)).toEqual({ texts: [] });
      }),
    );
  });

  it('keeps every figure of the prose exactly as written', () => {
    fc.assert(
      fc.property(fc.array(figure, { minLength: 1, maxLength: 20 }), (figures) => {
        const md = figures
          .map((f, i) => (i % 3 === 0 ? `**${f}**` : i % 3 === 1 ? `_${f}_` : f))
          .join(' and ');
        const out = forPhone(`Net profit was ${md}.`).texts.join('\n');
        for (const f of figures) expect(out).toContain(f);
      }),
    );
  });
});

/** RFC 4180 fields, for reading the document back (csv-parse is not a dependency of this package). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') field += text[++i];
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      rows.push([...row, field]);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

describe('forPhone of a table', () => {
  const tableAnswer = fc.record({
    t: table(60),
    maxRows: fc.integer({ min: 0, max: 15 }),
    documentRows: fc.integer({ min: 1, max: 40 }),
  });
  const isSummary = (t: Table, maxRows: number) => t.rows.length > maxRows && t.bold.at(-1)?.[0] === true;

  it('shows the figures of the first maxRows rows verbatim, each row on one line with its label in bold', () => {
    fc.assert(
      fc.property(tableAnswer, ({ t, maxRows, documentRows }) => {
        const { texts } = forPhone(`### Invoices\n\n${tableMarkdown(t)}`, { maxRows, documentRows });
        const [heading, ...lines] = texts.join('\n').split('\n');
        expect(heading).toBe('*Invoices*');
        // A row of empty cells shows nothing; every other row is the next line.
        const shown = t.rows.slice(0, maxRows).flatMap((row, i) => (row.some(Boolean) ? [i] : []));
        shown.forEach((i, k) => {
          const row = t.rows[i] ?? [];
          const line = lines[k] ?? '';
          if (row[0]) expect(line.startsWith(`*${row[0]}*`)).toBe(true);
          else expect(line.startsWith('*')).toBe(t.bold[i]?.some(Boolean) === true && !t.head[1]);
          row.slice(1).forEach((c, j) => {
            const value = t.bold[i]?.[j + 1] ? `*${c}*` : c;
            if (c) expect(line).toContain(`${t.head[j + 1]}: ${value}`);
          });
        });
      }),
    );
  });

  it('counts the rows left out, keeps a bold last (total) row, and offers the CSV when one is attached', () => {
    fc.assert(
      fc.property(tableAnswer, ({ t, maxRows, documentRows }) => {
        const { texts, document } = forPhone(tableMarkdown(t), { maxRows, documentRows });
        const out = texts.join('\n');
        const summary = isSummary(t, maxRows);
        const hidden =
          t.rows.length - Math.min(maxRows, t.rows.length - (summary ? 1 : 0)) - (summary ? 1 : 0);
        if (hidden > 0) expect(out).toContain(`…and ${hidden} more.`);
        else expect(out).not.toContain('more.');
        expect(out.match(/…and \d+ more\./g)?.length ?? 0).toBe(hidden > 0 ? 1 : 0);
        const attached = t.rows.length >= documentRows;
        expect(document !== undefined).toBe(attached);
        const n = t.rows.length;
        const offer = `The full list of ${n} ${n === 1 ? 'row' : 'rows'} is attached as a CSV file.`;
        expect(out.includes(offer)).toBe(attached);
        if (summary) {
          const [label = '', ...cells] = t.rows.at(-1) ?? [];
          const lastLine = texts.at(-1)?.split('\n').at(-1) ?? '';
          expect(lastLine.startsWith(`*${label}*`)).toBe(true);
          for (const c of cells) expect(lastLine).toContain(c);
        }
      }),
    );
  });

  it('the CSV document reads back as the table: header first, every row, every cell as written', () => {
    fc.assert(
      fc.property(table(60), fc.integer({ min: 1, max: 30 }), (t, documentRows) => {
        fc.pre(t.rows.length >= documentRows);
        const { document } = forPhone(`## Aged receivables — March\n\n${tableMarkdown(t)}`, { documentRows });
        expect(document?.mimeType).toBe('text/csv');
        expect(document?.filename).toBe('aged-receivables-march.csv');
        expect(document?.caption).toContain(`${t.rows.length} row`);
        const content = document?.content ?? '';
        expect(content.startsWith('\uFEFF')).toBe(true);
        const parsed = parseCsv(content.slice(1));
        expect(parsed).toEqual([t.head, ...t.rows]);
      }),
    );
  });
});
