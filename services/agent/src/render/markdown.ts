/** A cell's text: one line, no column breaks. */
export function cell(text: string | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

export const bold = (text: string | undefined): string => (text ? `**${text}**` : '');

/** A markdown table; `right` marks the columns of figures, aligned right. */
export function table(head: string[], rows: (string | undefined)[][], right: boolean[] = []): string {
  const line = (cells: (string | undefined)[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `| ${head.map((_, i) => (right[i] ? '---:' : '---')).join(' | ')} |`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

/** A report's heading and the line under it (company, date or period, currency). */
export function heading(title: string, sub: (string | undefined)[] = []): string {
  const under = sub.filter(Boolean).join(' · ');
  return under ? `### ${title}\n${under}` : `### ${title}`;
}
