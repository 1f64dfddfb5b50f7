const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A run with no space in it cut into pieces of at most `limit` UTF-16 code units: between
 * graphemes (a Devanagari syllable, an emoji stay whole), between code points when one alone is longer.
 */
function hardSplit(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (const { segment } of graphemes.segment(text)) {
    for (const unit of segment.length > limit ? Array.from(segment) : [segment]) {
      if (piece.length + unit.length > limit) {
        pieces.push(piece);
        piece = '';
      }
      piece += unit;
    }
  }
  if (piece) pieces.push(piece);
  return pieces.filter(Boolean);
}

/**
 * An over-long line cut at spaces (the spaces at a cut dropped), a word longer than `limit` cut
 * by `hardSplit`. Only spaces and tabs count: a no-break space (₹ 5 lakh) holds its words together.
 */
function splitLine(line: string, limit: number): string[] {
  const parts = line.split(/([ \t]+)/);
  const chunks: string[] = [];
  let chunk = '';
  let started = false;
  for (let i = 0; i < parts.length; i += 2) {
    const word = parts[i] ?? '';
    const space = i === 0 ? '' : (parts[i - 1] ?? '');
    if (word === '') continue;
    // Indentation before the first word is kept; spaces at a cut are not.
    const joined = !started ? `${space}${word}` : chunk === '' ? word : `${chunk}${space}${word}`;
    started = true;
    if (joined.length <= limit) {
      chunk = joined;
      continue;
    }
    if (chunk !== '') chunks.push(chunk);
    const alone = chunk === '' ? joined : word;
    const pieces = alone.length <= limit ? [alone] : hardSplit(alone, limit);
    chunks.push(...pieces.slice(0, -1));
    chunk = pieces.at(-1) ?? '';
  }
  if (chunk !== '') chunks.push(chunk);
  return chunks;
}

/**
 * Paragraphs of lines packed into texts of at most `limit` UTF-16 code units (what WhatsApp counts):
 * whole paragraphs where they fit, a paragraph too long for one text at its lines, a line too long
 * at its words. No text is empty; joined with the whitespace dropped at the cuts, they are the whole.
 */
export function pack(blocks: string[][], limit: number): string[] {
  const texts: string[] = [];
  let current = '';
  const flush = () => {
    const text = current.trimEnd();
    if (text.trim() !== '') texts.push(text);
    current = '';
  };
  const add = (piece: string, separator: string) => {
    if (current === '') current = piece.trim() === '' ? '' : piece;
    else if (current.length + separator.length + piece.length <= limit) current += separator + piece;
    else {
      flush();
      current = piece.trim() === '' ? '' : piece;
    }
  };
  for (const lines of blocks) {
    const whole = lines.join('\n');
    if (whole.length <= limit) {
      add(whole, '\n\n');
      continue;
    }
    flush();
    for (const line of lines) {
      if (line.length <= limit) {
        add(line, '\n');
        continue;
      }
      splitLine(line, limit).forEach((chunk, i) => {
        if (i > 0) flush();
        add(chunk, '\n');
      });
    }
  }
  flush();
  return texts;
}
