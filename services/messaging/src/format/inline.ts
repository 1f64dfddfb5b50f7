import type { MarkedToken, Token } from 'marked';

/** How inline markup is shown; `plain`: no bold, italic or strike markers (a label made bold, a CSV cell). */
interface InlineMode {
  plain?: boolean;
  inStrong?: boolean;
  inEm?: boolean;
  inDel?: boolean;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** HTML character references as the markdown reader would see them (one pass: `&amp;lt;` stays `&lt;`). */
function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** Tags and comments removed, `<br>` a line break, references decoded. */
export function stripTags(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/?[a-z][^>]*>/gi, ''),
  );
}

/**
 * Text as written, references decoded; a lone `**` or `__` that the parser did not pair is markdown
 * the phone would show raw, so it goes (a run of more, like a masked `****1234`, is content).
 */
function prose(text: string): string {
  return decodeEntities(text.replace(/(?<!\*)\*\*(?!\*)|(?<!_)__(?!_)/g, ''));
}

/** WhatsApp markers hug the text (`*bold*`, never `* bold *`); the spaces around it stay outside. */
function wrap(marker: string, inner: string, off: boolean | undefined): string {
  const body = inner.trim();
  if (off || body === '') return inner;
  const start = inner.slice(0, inner.length - inner.trimStart().length);
  const end = inner.slice(inner.trimEnd().length);
  return `${start}${marker}${body}${marker}${end}`;
}

function one(token: Token, mode: InlineMode): string {
  const t = token as MarkedToken;
  switch (t.type) {
    case 'text':
      return 'tokens' in t && t.tokens ? inline(t.tokens, mode) : prose(t.text);
    case 'escape':
      return t.text;
    case 'strong':
      return wrap('*', inline(t.tokens, { ...mode, inStrong: true }), mode.plain || mode.inStrong);
    case 'em':
      return wrap('_', inline(t.tokens, { ...mode, inEm: true }), mode.plain || mode.inEm);
    case 'del':
      return wrap('~', inline(t.tokens, { ...mode, inDel: true }), mode.plain || mode.inDel);
    case 'codespan':
      return decodeEntities(t.text);
    case 'br':
      return '\n';
    case 'link': {
      const text = inline(t.tokens, mode).trim();
      if (text === '' || text === t.href) return t.href;
      return `mailto:${text}` === t.href ? text : `${text} (${t.href})`;
    }
    case 'image':
      return t.text ? `${decodeEntities(t.text)} (${t.href})` : t.href;
    case 'html':
      return stripTags(t.text);
    case 'checkbox':
      return '';
    default: {
      // A token of an extension marked may grow: its text, if it has one.
      const text: unknown = (token as { text?: unknown }).text;
      return typeof text === 'string' ? prose(text) : '';
    }
  }
}

/** Inline markdown tokens as WhatsApp text: `*bold*`, `_italic_`, `~strike~`, links as "text (url)". */
export function inline(tokens: Token[] | undefined, mode: InlineMode = {}): string {
  let out = '';
  for (const token of tokens ?? []) out += one(token, mode);
  return out;
}
