import picomatch from 'picomatch';

/** A glob's matcher: case-sensitive, and `*` matches a leading dot too. */
export const glob = (pattern: string) => picomatch(pattern, { dot: true, nocase: false });

/** A glob read as parts: what a name must hold as written, and where it may hold anything. */
type GlobPart =
  | { kind: 'literal'; char: string }
  | { kind: 'star' }
  | { kind: 'one'; sample: string }
  | { kind: 'brace'; alternatives: GlobPart[][] };

/** Reads a glob from `from` (in a brace group, up to its `,` or `}`): its parts and where it stopped. */
function readGlob(pattern: string, from: number, inBrace: boolean): { parts: GlobPart[]; end: number } {
  const parts: GlobPart[] = [];
  let i = from;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (inBrace && (c === ',' || c === '}')) break;
    if (c === '\\' && i + 1 < pattern.length) {
      parts.push({ kind: 'literal', char: pattern[i + 1] as string });
      i += 2;
    } else if (c === '*') {
      if (parts.at(-1)?.kind !== 'star') parts.push({ kind: 'star' });
      i += 1;
    } else if (c === '?') {
      parts.push({ kind: 'one', sample: 'x' });
      i += 1;
    } else if (c === '[' && pattern.indexOf(']', i + 2) > 0) {
      const close = pattern.indexOf(']', i + 2);
      const body = pattern.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      parts.push({ kind: 'one', sample: negated ? 'x' : (body[0] as string) });
      i = close + 1;
    } else if (c === '{') {
      const alternatives: GlobPart[][] = [];
      let j = i + 1;
      let closed = false;
      while (j <= pattern.length) {
        const read = readGlob(pattern, j, true);
        alternatives.push(read.parts);
        j = read.end + 1;
        if (pattern[read.end] === '}') {
          closed = true;
          break;
        }
        if (read.end >= pattern.length) break;
      }
      if (closed && alternatives.length > 1) {
        parts.push({ kind: 'brace', alternatives });
        i = j;
      } else {
        parts.push({ kind: 'literal', char: c });
        i += 1;
      }
    } else {
      parts.push({ kind: 'literal', char: c });
      i += 1;
    }
  }
  return { parts, end: i };
}

/** How specific a glob is: see `ToolPolicy` in policy.ts. */
interface Specificity {
  exact: boolean;
  literals: number;
  stars: number;
}

function measure(parts: readonly GlobPart[]): Specificity {
  let literals = 0;
  let stars = 0;
  let exact = true;
  for (const part of parts) {
    if (part.kind === 'literal') literals += 1;
    else if (part.kind === 'star') {
      stars += 1;
      exact = false;
    } else if (part.kind === 'one') exact = false;
    else {
      const each = part.alternatives.map(measure);
      literals += Math.min(...each.map((m) => m.literals));
      stars += Math.max(...each.map((m) => m.stars));
      exact = false;
    }
  }
  return { exact, literals, stars };
}

const MAX_PROBES = 64;

/** Names a glob matches with each `*` holding `fill` (brace alternatives each, up to a bound). */
export function render(parts: readonly GlobPart[], fill: string): string[] {
  let out = [''];
  for (const part of parts) {
    const tails =
      part.kind === 'literal'
        ? [part.char]
        : part.kind === 'star'
          ? [fill]
          : part.kind === 'one'
            ? [part.sample]
            : part.alternatives.flatMap((alternative) => render(alternative, fill));
    out = out.flatMap((head) => tails.map((tail) => head + tail)).slice(0, MAX_PROBES);
  }
  return out;
}

export interface CompiledPattern extends Specificity {
  text: string;
  parts: GlobPart[];
  test: (name: string) => boolean;
}

export function compile(pattern: string): CompiledPattern {
  const { parts } = readGlob(pattern, 0, false);
  return { text: pattern, parts, test: glob(pattern), ...measure(parts) };
}
