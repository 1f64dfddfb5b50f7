import type { FieldIssue } from '@munim/contracts';
import type { Doc, Figure, Line, TaxFigure } from './read.ts';
import type { Say } from './say.ts';

/** Half a paisa (cent): a figure rounded to two decimals is at most this far from the exact one. */
const HALF = 0.005 + 1e-7;

/** How the ambiguous figures of a call are read: a bare `discount` as money or percent, a rate ≤ 1 as a fraction. */
export interface Reading {
  discountPercent: boolean;
  rateFraction: boolean;
}

/** Components of a tax split (lower case): within a region (`cgst`, `sgst`, `utgst`) and across (`igst`). */
export interface Components {
  within: ReadonlySet<string>;
  across: ReadonlySet<string>;
}

/** A line's figures as checked: its amount before tax, its tax, and how many of them were worked out here. */
interface LineOut {
  net: number | undefined;
  tax: number | undefined;
  /** The amount and tax as the call states them, where they were found wrong. */
  statedNet: number | undefined;
  statedTax: number | undefined;
  computed: number;
}

/** Whether two figures differ by more than the rounding allows (and more than floating point can carry). */
const off = (a: number, b: number, tolerance = HALF) =>
  Math.abs(a - b) > tolerance + Math.max(Math.abs(a), Math.abs(b)) * 1e-12;

/** A rate as a percentage in this reading: 0.18 is 18% when rates are read as fractions. */
export const percentOf = (n: number, reading: Reading) =>
  reading.rateFraction && n > 0 && n < 1 ? n * 100 : n;

/** The whole rate of a line's rate fields: one rate, or its components' (CGST 9 + SGST 9, a lone CGST 9 twice). */
export function wholeRate(
  rates: readonly TaxFigure[],
  parts: Components,
  reading: Reading,
): number | undefined {
  const plain = rates.find((r) => r.component === undefined || !isPart(r.component, parts));
  if (plain) return percentOf(plain.n, reading);
  const across = rates.find((r) => parts.across.has(r.component ?? ''));
  if (across) return percentOf(across.n, reading);
  const within = rates.filter((r) => parts.within.has(r.component ?? ''));
  if (within.length === 0) return undefined;
  const sum = within.reduce((s, r) => s + percentOf(r.n, reading), 0);
  return within.length === 1 ? sum * 2 : sum;
}

const isPart = (component: string, parts: Components) =>
  parts.within.has(component) || parts.across.has(component);

function issue(
  code: string,
  figure: Figure,
  expected: string,
  received: string,
  message: string,
): FieldIssue {
  return { field: figure.path, code, expected, received, message };
}

/** Checks one line: quantity × price − discount = amount, tax = amount × rate, and its total. */
function checkLine(
  line: Line,
  docRate: number | undefined,
  inclusive: boolean,
  parts: Components,
  reading: Reading,
  say: Say,
  out: FieldIssue[],
): LineOut {
  const found = out.length;
  let computed = 0;
  let base: number | undefined;
  let discount = 0;
  if (line.quantity && line.price) {
    const gross = line.quantity.n * line.price.n;
    if (line.discount) {
      const percent = line.discount.percent ?? line.discountPercent ?? reading.discountPercent;
      discount = percent ? (gross * line.discount.n) / 100 : line.discount.n;
    }
    base = gross - discount;
  }
  const amount = line.amount;
  if (amount && base !== undefined && off(amount.n, base)) {
    const less = discount ? ` less the discount of ${say.money(discount)}` : '';
    out.push(
      issue(
        'amount_mismatch',
        amount,
        say.money(base),
        say.money(amount.n),
        `${say.where(amount.path, true)} is ${say.money(amount.n)}, but quantity ${say.number(line.quantity?.n ?? 0)} × price ${say.money(line.price?.n ?? 0)}${less} is ${say.money(base)}.`,
      ),
    );
  }
  const net = amount?.n ?? base;
  if (!amount && base !== undefined) computed += 1;
  const rate = wholeRate(line.rates, parts, reading) ?? docRate;
  let expected: number | undefined;
  if (net !== undefined && rate !== undefined)
    expected = inclusive ? (net * rate) / (100 + rate) : (net * rate) / 100;
  const plain = line.taxes.filter((t) => t.component === undefined || !isPart(t.component, parts));
  // A component of nought is one not charged (an e-invoice's `CgstAmt: 0` beside its IGST).
  const components = line.taxes.filter(
    (t) => t.component !== undefined && isPart(t.component, parts) && t.n !== 0,
  );
  if (expected !== undefined && rate !== undefined && net !== undefined) {
    for (const tax of plain)
      if (off(tax.n, expected))
        out.push(
          issue(
            'tax_mismatch',
            tax,
            say.money(expected),
            say.money(tax.n),
            `${say.where(tax.path, true)} is ${say.money(tax.n)}, but ${say.rate(rate)} of the line's amount ${say.money(net)} is ${say.money(expected)}.`,
          ),
        );
    for (const tax of components) {
      const name = (tax.component ?? '').toUpperCase();
      const share = parts.within.has(tax.component ?? '') ? 2 : 1;
      const part = expected / share;
      // Books may round the whole tax first and then split it: half a paisa more, shared.
      if (off(tax.n, part, HALF + HALF / share))
        out.push(
          issue(
            'tax_mismatch',
            tax,
            say.money(part),
            say.money(tax.n),
            `${say.where(tax.path, true)} (${name}) is ${say.money(tax.n)}, but ${name} at ${say.rate(rate / share)}${share === 2 ? ` (half of ${say.rate(rate)})` : ''} of the line's amount ${say.money(net)} is ${say.money(part)}.`,
          ),
        );
    }
  }
  let tax: number | undefined;
  if (plain[0]) tax = plain[0].n;
  else if (components.length > 0) tax = components.reduce((s, t) => s + t.n, 0);
  else if (expected !== undefined) {
    tax = expected;
    computed += 1;
  } else if (inclusive) tax = 0;
  // A figure found wrong is summed as it should be: the document's totals then say only what is
  // wrong with them, not again what is wrong with the line.
  const stated = tax;
  if (expected !== undefined && out.slice(found).some((i) => i.code === 'tax_mismatch')) tax = expected;
  const amountWrong = out.slice(found).some((i) => i.code === 'amount_mismatch');
  if (line.total && net !== undefined && (tax !== undefined || inclusive)) {
    const withTax = inclusive ? net : net + (tax ?? 0);
    const slack = HALF * (1 + computed);
    if (
      off(line.total.n, withTax, slack) &&
      off(line.total.n, net, slack) &&
      off(line.total.n, net + (stated ?? 0), slack)
    )
      out.push(
        issue(
          'total_mismatch',
          line.total,
          say.money(withTax),
          say.money(line.total.n),
          `${say.where(line.total.path, true)} is ${say.money(line.total.n)}, but the line's amount ${say.money(net)}${inclusive ? '' : ` plus its tax ${say.money(tax ?? 0)}`} is ${say.money(withTax)}.`,
        ),
      );
  }
  return { net: amountWrong ? base : net, tax, statedNet: net, statedTax: stated, computed };
}

const sum = (figures: readonly { n: number }[]) => figures.reduce((s, f) => s + f.n, 0);

/** Checks a document's lines and its subtotal, tax and total, read one way ({@link Reading}). */
export function checkDocument(doc: Doc, parts: Components, reading: Reading, say: Say): FieldIssue[] {
  const out: FieldIssue[] = [];
  const inclusive = doc.inclusive === true;
  const docRate = wholeRate(doc.rates, parts, reading);
  const lines = doc.lines.map((line) =>
    checkLine(line, docRate, inclusive || line.inclusive === true, parts, reading, say, out),
  );
  const computed = lines.reduce((s, l) => s + l.computed, 0);
  const tolerance = HALF * (1 + computed);
  const total = (key: keyof LineOut) =>
    lines.every((l) => l[key] !== undefined) ? lines.reduce((s, l) => s + (l[key] ?? 0), 0) : undefined;
  // What the lines come to as they should be, and as the call states them: a document total that
  // agrees with either says nothing new (a wrong line is reported once, on the line).
  const nets = total('net');
  const taxes = total('tax');
  const statedNets = total('statedNet') ?? nets;
  const statedTaxes = total('statedTax') ?? taxes;
  const agrees = (n: number, right: number, asStated: number | undefined) =>
    !off(n, right, tolerance) || (asStated !== undefined && !off(n, asStated, tolerance));
  const plain = doc.taxes.filter((t) => t.component === undefined || !isPart(t.component, parts));
  const components = doc.taxes.filter(
    (t) => t.component !== undefined && isPart(t.component, parts) && t.n !== 0,
  );
  if (taxes !== undefined) {
    for (const tax of plain)
      if (!agrees(tax.n, taxes, statedTaxes))
        out.push(
          issue(
            'tax_mismatch',
            tax,
            say.money(taxes),
            say.money(tax.n),
            `${say.where(tax.path, true)} is ${say.money(tax.n)}, but the lines' tax adds up to ${say.money(taxes)}.`,
          ),
        );
    const within = components.filter((t) => parts.within.has(t.component ?? ''));
    const share = within.length > 0 ? 2 : 1;
    for (const tax of components)
      if (!agrees(tax.n, taxes / share, statedTaxes === undefined ? undefined : statedTaxes / share))
        out.push(
          issue(
            'tax_mismatch',
            tax,
            say.money(taxes / share),
            say.money(tax.n),
            `${say.where(tax.path, true)} (${(tax.component ?? '').toUpperCase()}) is ${say.money(tax.n)}, but the lines' tax of ${say.money(taxes)} gives ${say.money(taxes / share)}.`,
          ),
        );
  }
  if (doc.subtotal && nets !== undefined && !agrees(doc.subtotal.n, nets, statedNets))
    out.push(
      issue(
        'total_mismatch',
        doc.subtotal,
        say.money(nets),
        say.money(doc.subtotal.n),
        `${say.where(doc.subtotal.path, true)} is ${say.money(doc.subtotal.n)}, but the lines' amounts add up to ${say.money(nets)}.`,
      ),
    );
  const grand = doc.total;
  const base = nets ?? doc.subtotal?.n;
  const taxPart = taxes ?? plain[0]?.n ?? (components.length > 0 ? sum(components) : undefined);
  if (!grand || doc.unknownMoney || base === undefined || (taxPart === undefined && !inclusive)) return out;
  const charges = sum(doc.adjustments);
  const discount = doc.discount
    ? (doc.discount.percent ?? doc.discountPercent ?? reading.discountPercent)
      ? (base * doc.discount.n) / 100
      : doc.discount.n
    : 0;
  const tax = inclusive ? 0 : (taxPart ?? 0);
  const expected = base - discount + tax + charges;
  const taxAfterDiscount = base > 0 ? tax * (1 - discount / base) : tax;
  const asStated = (statedNets ?? base) - discount + (inclusive ? 0 : (statedTaxes ?? tax)) + charges;
  if (
    !agrees(grand.n, expected, asStated) &&
    off(grand.n, base - discount + taxAfterDiscount + charges, tolerance)
  ) {
    const parts = [`the lines' amounts ${say.money(base)}`];
    if (discount) parts.push(`less the discount of ${say.money(discount)}`);
    if (!inclusive) parts.push(`plus tax of ${say.money(tax)}`);
    if (charges) parts.push(`plus charges of ${say.money(charges)}`);
    out.push(
      issue(
        'total_mismatch',
        grand,
        say.money(expected),
        say.money(grand.n),
        `${say.where(grand.path, true)} is ${say.money(grand.n)}, but ${parts.join(' ')} come to ${say.money(expected)}.`,
      ),
    );
  }
  return out;
}
