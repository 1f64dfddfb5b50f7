/** Figures, rates, dates and fields as a finance person reads them, in the books' locale and currency. */
export interface Say {
  money(n: number): string;
  number(n: number): string;
  rate(percent: number): string;
  date(iso: string): string;
  /** A field's path in words: `Lines[1].TaxAmount` → `line 2's TaxAmount (Lines[1].TaxAmount)`. */
  where(path: string, first?: boolean): string;
}

/** How to say figures for books in `locale` and `currency` (plain two-decimal figures without them). */
export function sayer(locale = 'en-IN', currency?: string): Say {
  let money: Intl.NumberFormat;
  try {
    money = new Intl.NumberFormat(locale, {
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
      ...(currency ? { style: 'currency', currency } : {}),
    });
  } catch {
    money = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }
  const plain = new Intl.NumberFormat('en', { maximumFractionDigits: 4 });
  return {
    money: (n) => money.format(Math.round(n * 100) / 100 + 0),
    number: (n) => plain.format(n),
    rate: (p) => `${plain.format(Math.round(p * 10_000) / 10_000)}%`,
    date: (iso) => {
      const [y, m, d] = iso.split('-').map(Number);
      const when = new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1));
      return when.toLocaleDateString('en-GB', {
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      });
    },
    where: (path, first) => {
      const m = /\[(\d+)\]\.([^.[\]]+)$/.exec(path);
      return m ? `${first ? 'L' : 'l'}ine ${Number(m[1]) + 1}'s ${m[2]} (${path})` : path;
    },
  };
}
