import { type MarkedToken, marked, type Token } from 'marked';
import { inline, stripTags } from './inline.ts';
import { type PhoneDocument, tableForPhone } from './table.ts';

export interface RenderOptions {
  maxChars: number;
  maxRows: number;
  documentRows: number;
}

/** What the phone shows: paragraphs (blank lines between), each of lines. */
export interface Rendered {
  blocks: string[][];
  document?: PhoneDocument;
}

/** Fences a person reads: shown in monospace. Any other info string (card, chart, json, params) is for the UI. */
const READABLE = new Set([
  '',
  'text',
  'txt',
  'plain',
  'plaintext',
  'console',
  'sh',
  'bash',
  'shell',
  'sql',
  'csv',
  'tsv',
  'diff',
  'python',
  'py',
  'javascript',
  'js',
  'typescript',
  'ts',
]);
/**
 * The agent's output guard drops a card block wherever its fence starts, even where markdown would
 * not read a fence (after a tab); the same rule here, so no card's content reaches the phone.
 */
const CARD_BLOCK = /```card[\s\S]*?(?:```|$)/g;
/** A whole answer the model fenced as markdown is read as markdown. */
const MARKDOWN = new Set(['markdown', 'md']);

interface Block {
  lines: string[];
  /** A heading: shown on the line above what follows it. */
  glue?: boolean;
}

interface Context extends RenderOptions {
  title: string | undefined;
  document: PhoneDocument | undefined;
}

const WHATSAPP_FENCE = '```';

function codeLines(text: string, maxChars: number): string[] {
  const lines = text.split('\n').map((l) => l.trimEnd());
  while (lines[0] === '') lines.shift();
  while (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return [];
  const whole = `${WHATSAPP_FENCE}${lines.join('\n')}${WHATSAPP_FENCE}`;
  if (whole.length <= maxChars) return [whole];
  // Too long for one message: each line its own monospace run, so a split never leaves a fence open.
  return lines.map((l) =>
    l.trim() !== '' && l.length + 2 * WHATSAPP_FENCE.length <= maxChars
      ? `${WHATSAPP_FENCE}${l}${WHATSAPP_FENCE}`
      : l,
  );
}

const textLines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The lines of nested blocks (a list item's, a quote's), without blank lines between them. */
const flat = (tokens: Token[], ctx: Context) => walk(tokens, ctx).flatMap((b) => b.lines);

function listLines(list: Extract<MarkedToken, { type: 'list' }>, ctx: Context): string[] {
  const start = list.start === '' ? 1 : list.start;
  return list.items.flatMap((item, i) => {
    const box = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
    const marker = `${list.ordered ? `${start + i}.` : '•'} ${box}`;
    const [first = '', ...rest] = flat(item.tokens, ctx);
    return [`${marker}${first}`.trimEnd(), ...rest.map((l) => `  ${l}`)];
  });
}

/** `next`: the block after this one (spaces skipped). */
function block(token: Token, next: Token | undefined, ctx: Context): Block[] {
  const t = token as MarkedToken;
  switch (t.type) {
    case 'heading': {
      const text = inline(t.tokens, { plain: true }).replace(/\s+/g, ' ').trim();
      if (!text) return [];
      ctx.title = text;
      return [{ lines: [`*${text}*`], glue: true }];
    }
    case 'paragraph':
    case 'text': {
      const tokens = 'tokens' in t && t.tokens ? t.tokens : undefined;
      const lines = textLines(tokens ? inline(tokens) : inline([t]));
      const only = tokens?.length === 1 ? tokens[0] : undefined;
      // A paragraph all in bold over a table is its heading ("**Aging by customer**").
      if (only?.type === 'strong' && lines.length === 1 && next?.type === 'table') {
        ctx.title = inline(only.tokens as Token[], { plain: true }).trim();
        return [{ lines, glue: true }];
      }
      return lines.length > 0 ? [{ lines }] : [];
    }
    case 'code': {
      const lang = (t.lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      // An indented fence (a ```card block under a tab) is still the model's block, not code to show.
      const fenced = t.codeBlockStyle === 'indented' && /^\s*(```|~~~)/.test(t.text);
      if (MARKDOWN.has(lang) || fenced) return walk(marked.lexer(t.text, { gfm: true }), ctx);
      if (!READABLE.has(lang)) return [];
      const lines = codeLines(t.text, ctx.maxChars);
      return lines.length > 0 ? [{ lines }] : [];
    }
    case 'table': {
      const attach = ctx.document === undefined && t.rows.length >= ctx.documentRows;
      const out = tableForPhone(t, { maxRows: ctx.maxRows, attach, title: ctx.title });
      if (out.document) ctx.document = out.document;
      return out.lines.length > 0 ? [{ lines: out.lines }] : [];
    }
    case 'list': {
      const lines = listLines(t, ctx);
      return lines.length > 0 ? [{ lines }] : [];
    }
    case 'blockquote': {
      const lines = flat(t.tokens, ctx).map((l) => `> ${l.replace(/\n/g, '\n> ')}`.trimEnd());
      return lines.length > 0 ? [{ lines }] : [];
    }
    case 'html': {
      const lines = textLines(stripTags(t.text));
      return lines.length > 0 ? [{ lines }] : [];
    }
    default:
      // space, hr, def: nothing to show; the blank line between paragraphs already separates them.
      return [];
  }
}

function walk(tokens: Token[], ctx: Context): Block[] {
  const shown = tokens.filter((t) => t.type !== 'space');
  return shown.flatMap((t, i) => block(t, shown[i + 1], ctx));
}

/** The answer's markdown as WhatsApp text, in paragraphs of lines, and the table that goes as a file. */
export function render(markdown: string, opts: RenderOptions): Rendered {
  const ctx: Context = { ...opts, title: undefined, document: undefined };
  const blocks: string[][] = [];
  let pending: string[] = [];
  for (const b of walk(marked.lexer(markdown.replace(CARD_BLOCK, ''), { gfm: true }), ctx)) {
    pending.push(...b.lines);
    if (b.glue) continue;
    blocks.push(pending);
    pending = [];
  }
  if (pending.length > 0) blocks.push(pending);
  return ctx.document ? { blocks, document: ctx.document } : { blocks };
}

/** The rendering as one text, unsplit: what the split texts add up to. */
export const joinBlocks = (blocks: string[][]) => blocks.map((b) => b.join('\n')).join('\n\n');
