// Seeded, deterministic books of a small Indian trading business ("Sharma Traders Pvt Ltd").
// Everything derives from one PRNG seed and the `asOf` date: same seed + same asOf → same books.

export type AccountType = 'ASSET' | 'LIABILITY' | 'EQUITY' | 'REVENUE' | 'EXPENSE';

export interface Account {
  AccountId: string;
  Code: string;
  Name: string;
  Type: AccountType;
  SubType: string;
}

export interface Contact {
  ContactId: string;
  ContactType: 'CUSTOMER' | 'VENDOR';
  Name: string;
  Email: string | null;
  Phone: string | null;
  GSTIN: string | null;
  PAN: string | null;
  Address: string | null;
  City: string | null;
  State: string | null;
  PaymentTermsDays: number;
  CreatedAt: string;
}

export interface Line {
  Description: string;
  Quantity: number;
  UnitPrice: number;
  TaxRate: number;
  AccountId: string | null;
  LineAmount: number;
  TaxAmount: number;
}

export interface Invoice {
  InvoiceId: string;
  InvoiceNumber: string;
  ContactId: string | null;
  Date: string;
  DueDate: string;
  Reference: string | null;
  Notes: string | null;
  Status: 'DRAFT' | 'AUTHORISED' | 'VOIDED';
  Lines: Line[];
  CurrencyCode: 'INR';
  /** The state supplied to, when not the customer's. */
  PlaceOfSupply?: string | null;
  SentToContact: boolean;
  SentTo: string | null;
  CreatedAt: string;
  UpdatedAt: string;
}

export interface Bill {
  BillId: string;
  BillNumber: string;
  ContactId: string | null;
  Date: string;
  DueDate: string;
  Reference: string | null;
  Status: 'DRAFT' | 'SUBMITTED' | 'AUTHORISED' | 'VOIDED';
  Lines: Line[];
  CurrencyCode: 'INR';
  CreatedAt: string;
  UpdatedAt: string;
}

export interface Application {
  InvoiceId?: string | null;
  BillId?: string | null;
  Amount: number;
}

export interface Payment {
  PaymentId: string;
  PaymentNumber: string;
  /** RECEIVE: money in from a customer against invoices; SPEND: money out to a vendor against bills. */
  Type: 'RECEIVE' | 'SPEND';
  ContactId: string | null;
  AccountId: string | null;
  Amount: number;
  Date: string;
  Reference: string | null;
  PaymentMode: string | null;
  Applications: Application[];
  Status: 'ACTIVE' | 'VOIDED';
  CreatedAt: string;
  UpdatedAt: string;
}

export interface CreditNote {
  CreditNoteId: string;
  CreditNoteNumber: string;
  ContactId: string | null;
  /** The invoice the credit is allocated to, if any. */
  InvoiceId: string | null;
  Date: string;
  Reason: string | null;
  Reference: string | null;
  Status: 'AUTHORISED' | 'VOIDED';
  Lines: Line[];
  CurrencyCode: 'INR';
  CreatedAt: string;
}

export interface JournalLine {
  AccountId: string | null;
  Description: string | null;
  DebitAmount: number;
  CreditAmount: number;
}

export interface JournalEntry {
  JournalEntryId: string;
  JournalNumber: string;
  Date: string;
  Narration: string | null;
  Reference: string | null;
  Status: 'POSTED';
  Lines: JournalLine[];
  CreatedAt: string;
}

export interface Company {
  Name: string;
  LegalName: string;
  GSTIN: string;
  PAN: string;
  Address: string;
  City: string;
  State: string;
  CurrencyCode: 'INR';
}

export type NumberKind = 'INV' | 'BILL' | 'PMT' | 'CN' | 'JE';

export interface Books {
  /** "Today" of the books (YYYY-MM-DD): overdue, aging and default report dates are relative to it. */
  asOf: string;
  /** First day of the seeded period (the opening balances are dated here). */
  startDate: string;
  company: Company;
  accounts: Account[];
  contacts: Contact[];
  invoices: Invoice[];
  bills: Bill[];
  payments: Payment[];
  creditNotes: CreditNote[];
  journals: JournalEntry[];
  counters: Record<NumberKind, number>;
  /** Next UUID-shaped id from the books' own deterministic stream. */
  newId: () => string;
}

// ── small helpers ───────────────────────────────────────────────────────────

export const round2 = (n: number): number => Math.round((n + Number.EPSILON) * 100) / 100;

export const sum = (xs: readonly number[]): number => round2(xs.reduce((a, b) => a + b, 0));

export const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return isoDate(d);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function monthStart(date: string, offsetMonths: number): string {
  const d = new Date(`${date.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + offsetMonths);
  return isoDate(d);
}

const daysInMonth = (start: string): number => daysBetween(start, monthStart(start, 1));

export const nextNumber = (books: Books, kind: NumberKind): string => {
  books.counters[kind] += 1;
  return `${kind}-${String(books.counters[kind]).padStart(4, '0')}`;
};

/** Computes a line's amounts from its inputs; tolerant of anything (the server does not validate). */
export function makeLine(raw: Partial<Record<keyof Line, unknown>>, defaultAccountId: string | null): Line {
  const Quantity = toNumber(raw.Quantity);
  const UnitPrice = toNumber(raw.UnitPrice);
  const TaxRate = toNumber(raw.TaxRate);
  const LineAmount = round2(Quantity * UnitPrice);
  return {
    Description: typeof raw.Description === 'string' ? raw.Description : '',
    Quantity,
    UnitPrice,
    TaxRate,
    AccountId: typeof raw.AccountId === 'string' ? raw.AccountId : defaultAccountId,
    LineAmount,
    TaxAmount: round2((LineAmount * TaxRate) / 100),
  };
}

export function toNumber(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : 0;
}

export function lineTotals(lines: readonly Line[]): { SubTotal: number; TotalTax: number; Total: number } {
  const SubTotal = sum(lines.map((l) => l.LineAmount));
  const TotalTax = sum(lines.map((l) => l.TaxAmount));
  return { SubTotal, TotalTax, Total: round2(SubTotal + TotalTax) };
}

// ── deterministic randomness ────────────────────────────────────────────────

export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** RFC 4122 version-4-shaped UUIDs from a seeded stream. */
export function uuidFrom(rng: Rng): string {
  const b = Array.from({ length: 16 }, () => Math.floor(rng() * 256));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));

function pick<T>(rng: Rng, xs: readonly T[]): T {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from empty list');
  return x;
}

function shuffle<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const digits = (rng: Rng, n: number): string => Array.from({ length: n }, () => int(rng, 0, 9)).join('');
const letters = (rng: Rng, n: number): string =>
  Array.from({ length: n }, () => pick(rng, [...UPPER])).join('');

/** PAN: AAA + holder type + first letter of name + 4 digits + letter. */
function pan(rng: Rng, name: string, holder: 'C' | 'F' | 'P'): string {
  return `${letters(rng, 3)}${holder}${name[0]?.toUpperCase() ?? 'X'}${digits(rng, 4)}${letters(rng, 1)}`;
}

const GSTIN_CODE = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** GSTIN: state code + PAN + entity number + 'Z' + mod-36 check character. */
export function gstin(stateCode: string, panNo: string): string {
  const body = `${stateCode}${panNo}1Z`;
  let total = 0;
  [...body].forEach((ch, i) => {
    const p = GSTIN_CODE.indexOf(ch) * (i % 2 === 0 ? 1 : 2);
    total += Math.floor(p / 36) + (p % 36);
  });
  return body + GSTIN_CODE[(36 - (total % 36)) % 36];
}

export const STATE_CODES: Record<string, string> = {
  Maharashtra: '27',
  Gujarat: '24',
  Telangana: '36',
  Delhi: '07',
  Karnataka: '29',
  Kerala: '32',
};

// ── the business ────────────────────────────────────────────────────────────

const ACCOUNTS: readonly [string, string, AccountType, string][] = [
  ['1000', 'Bank - HDFC Current Account', 'ASSET', 'BANK'],
  ['1010', 'Cash in Hand', 'ASSET', 'CASH'],
  ['1100', 'Accounts Receivable', 'ASSET', 'RECEIVABLE'],
  ['1200', 'GST Input', 'ASSET', 'TAX'],
  ['1500', 'Office Equipment', 'ASSET', 'FIXED_ASSET'],
  ['1900', 'Suspense', 'ASSET', 'SUSPENSE'],
  ['2000', 'Accounts Payable', 'LIABILITY', 'PAYABLE'],
  ['2100', 'GST Output', 'LIABILITY', 'TAX'],
  ['3000', 'Share Capital', 'EQUITY', 'CAPITAL'],
  ['3100', 'Retained Earnings', 'EQUITY', 'RETAINED_EARNINGS'],
  ['4000', 'Sales', 'REVENUE', 'SALES'],
  ['4900', 'Other Income', 'REVENUE', 'OTHER_INCOME'],
  ['5000', 'Purchases', 'EXPENSE', 'COST_OF_SALES'],
  ['6000', 'Rent', 'EXPENSE', 'OPERATING'],
  ['6100', 'Salaries & Wages', 'EXPENSE', 'OPERATING'],
  ['6200', 'Electricity', 'EXPENSE', 'OPERATING'],
  ['6300', 'Freight & Cartage', 'EXPENSE', 'OPERATING'],
  ['6400', 'Bank Charges', 'EXPENSE', 'OPERATING'],
  ['6500', 'Office & Administrative Expenses', 'EXPENSE', 'OPERATING'],
];

export const ACCOUNT_CODES = {
  bank: '1000',
  cash: '1010',
  receivable: '1100',
  gstInput: '1200',
  equipment: '1500',
  suspense: '1900',
  payable: '2000',
  gstOutput: '2100',
  capital: '3000',
  sales: '4000',
  purchases: '5000',
  rent: '6000',
  salaries: '6100',
  electricity: '6200',
  freight: '6300',
  bankCharges: '6400',
} as const;

type Profile = 'prompt' | 'ontime' | 'late' | 'partial' | 'slow';

const CUSTOMERS: readonly {
  name: string;
  city: string;
  state: string;
  terms: number;
  profile: Profile;
  weight: number;
}[] = [
  { name: 'Acme Corp', city: 'Mumbai', state: 'Maharashtra', terms: 30, profile: 'partial', weight: 3 },
  { name: 'Patel Constructions', city: 'Ahmedabad', state: 'Gujarat', terms: 30, profile: 'late', weight: 2 },
  {
    name: 'Reddy Builders Pvt Ltd',
    city: 'Hyderabad',
    state: 'Telangana',
    terms: 45,
    profile: 'ontime',
    weight: 2,
  },
  { name: 'Kumar Electricals', city: 'Pune', state: 'Maharashtra', terms: 15, profile: 'prompt', weight: 2 },
  {
    name: 'Singh & Sons Hardware',
    city: 'New Delhi',
    state: 'Delhi',
    terms: 30,
    profile: 'slow',
    weight: 1.5,
  },
  { name: 'Iyer Interiors', city: 'Bengaluru', state: 'Karnataka', terms: 30, profile: 'ontime', weight: 1 },
  {
    name: 'Desai Enterprises',
    city: 'Nashik',
    state: 'Maharashtra',
    terms: 30,
    profile: 'prompt',
    weight: 1,
  },
  { name: 'Nair Hospitality LLP', city: 'Kochi', state: 'Kerala', terms: 30, profile: 'late', weight: 1 },
];

type VendorKind = 'goods' | 'rent' | 'power' | 'freight';

const VENDORS: readonly {
  name: string;
  city: string;
  state: string;
  terms: number;
  kind: VendorKind;
  ref: string;
}[] = [
  {
    name: 'Mehta Electricals Wholesale',
    city: 'Mumbai',
    state: 'Maharashtra',
    terms: 30,
    kind: 'goods',
    ref: 'MEW',
  },
  {
    name: 'Gupta Wires & Cables Pvt Ltd',
    city: 'Vadodara',
    state: 'Gujarat',
    terms: 45,
    kind: 'goods',
    ref: 'GWC',
  },
  { name: 'Bharat Switchgear Co', city: 'Thane', state: 'Maharashtra', terms: 30, kind: 'goods', ref: 'BSC' },
  {
    name: 'Sunrise Properties LLP',
    city: 'Mumbai',
    state: 'Maharashtra',
    terms: 5,
    kind: 'rent',
    ref: 'SPL',
  },
  {
    name: 'City Power Distribution Ltd',
    city: 'Mumbai',
    state: 'Maharashtra',
    terms: 15,
    kind: 'power',
    ref: 'CPD',
  },
  {
    name: 'SwiftMove Logistics',
    city: 'Mumbai',
    state: 'Maharashtra',
    terms: 15,
    kind: 'freight',
    ref: 'SML',
  },
];

const PRODUCTS: readonly { name: string; price: number; qty: [number, number] }[] = [
  { name: 'LED Panel Light 18W', price: 650, qty: [10, 60] },
  { name: 'Copper Wire 2.5 sq mm (90 m coil)', price: 2450, qty: [5, 40] },
  { name: 'MCB 32A Double Pole', price: 780, qty: [10, 50] },
  { name: 'PVC Conduit Pipe 25 mm (3 m)', price: 95, qty: [50, 300] },
  { name: 'Modular Switch 6A', price: 55, qty: [50, 400] },
  { name: 'Ceiling Fan 1200 mm', price: 2850, qty: [4, 25] },
  { name: 'Distribution Board 8-way', price: 1650, qty: [3, 15] },
  { name: 'LED Bulb 9W', price: 85, qty: [50, 300] },
];

const slug = (name: string): string =>
  name
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '')
    .slice(0, 24);

export interface SeedOptions {
  /** "Today" of the books; defaults to the current date. */
  asOf?: Date;
  seed?: number;
}

export function seedBooks(opts: SeedOptions = {}): Books {
  const asOf = isoDate(opts.asOf ?? new Date());
  const seed = opts.seed ?? 20_240_401;
  const rng = mulberry32(seed);
  const idRng = mulberry32(seed ^ 0x9e3779b9);
  const startDate = monthStart(asOf, -11);
  const stamp = (date: string): string => `${date}T10:00:00.000Z`;

  const books: Books = {
    asOf,
    startDate,
    company: {
      Name: 'Sharma Traders',
      LegalName: 'Sharma Traders Pvt Ltd',
      PAN: 'AAKCS4821M',
      GSTIN: gstin('27', 'AAKCS4821M'),
      Address: 'Shop 14, Lamington Road, Grant Road East',
      City: 'Mumbai',
      State: 'Maharashtra',
      CurrencyCode: 'INR',
    },
    accounts: [],
    contacts: [],
    invoices: [],
    bills: [],
    payments: [],
    creditNotes: [],
    journals: [],
    counters: { INV: 0, BILL: 0, PMT: 0, CN: 0, JE: 0 },
    newId: () => uuidFrom(idRng),
  };

  for (const [Code, Name, Type, SubType] of ACCOUNTS) {
    books.accounts.push({ AccountId: books.newId(), Code, Name, Type, SubType });
  }
  const acc = (code: string): string => books.accounts.find((a) => a.Code === code)?.AccountId ?? '';
  const A = Object.fromEntries(Object.entries(ACCOUNT_CODES).map(([k, code]) => [k, acc(code)])) as Record<
    keyof typeof ACCOUNT_CODES,
    string
  >;

  const contact = (
    type: Contact['ContactType'],
    c: { name: string; city: string; state: string; terms: number },
  ): Contact => {
    const panNo = pan(rng, c.name, /LLP|&/.test(c.name) ? 'F' : 'C');
    const record: Contact = {
      ContactId: books.newId(),
      ContactType: type,
      Name: c.name,
      Email: `accounts@${slug(c.name)}.in`,
      Phone: `+91 9${digits(rng, 9)}`,
      GSTIN: gstin(STATE_CODES[c.state] ?? '27', panNo),
      PAN: panNo,
      Address: `${int(rng, 1, 220)}, ${pick(rng, ['MG Road', 'Station Road', 'Industrial Estate', 'Market Yard', 'Ring Road'])}`,
      City: c.city,
      State: c.state,
      PaymentTermsDays: c.terms,
      CreatedAt: stamp(addDays(startDate, -30)),
    };
    books.contacts.push(record);
    return record;
  };
  const customers = CUSTOMERS.map((c) => ({ ...c, contact: contact('CUSTOMER', c) }));
  const vendors = VENDORS.map((v) => ({ ...v, contact: contact('VENDOR', v) }));
  const totalWeight = customers.reduce((s, c) => s + c.weight, 0);
  const pickCustomer = (): (typeof customers)[number] => {
    let r = rng() * totalWeight;
    for (const c of customers) {
      r -= c.weight;
      if (r <= 0) return c;
    }
    return customers[0] as (typeof customers)[number];
  };

  const productLines = (n: number, priceFactor: number, qtyFactor: number): Line[] => {
    return shuffle(rng, PRODUCTS)
      .slice(0, n)
      .map((p) =>
        makeLine(
          {
            Description: p.name,
            Quantity: Math.max(1, Math.round(int(rng, p.qty[0], p.qty[1]) * qtyFactor)),
            UnitPrice: round2(p.price * priceFactor),
            TaxRate: 18,
          },
          priceFactor === 1 ? A.sales : A.purchases,
        ),
      );
  };

  // Journals first in time: the opening balances.
  const journal = (date: string, narration: string, lines: [string, number, number][]): void => {
    books.journals.push({
      JournalEntryId: books.newId(),
      JournalNumber: '',
      Date: date,
      Narration: narration,
      Reference: null,
      Status: 'POSTED',
      Lines: lines.map(([AccountId, DebitAmount, CreditAmount]) => ({
        AccountId,
        Description: narration,
        DebitAmount: round2(DebitAmount),
        CreditAmount: round2(CreditAmount),
      })),
      CreatedAt: stamp(date),
    });
  };
  journal(addDays(startDate, -1), 'Opening balances', [
    [A.bank, 800_000, 0],
    [A.cash, 50_000, 0],
    [A.equipment, 150_000, 0],
    [A.capital, 0, 1_000_000],
  ]);

  const payment = (
    type: Payment['Type'],
    c: Contact,
    date: string,
    amount: number,
    target: { InvoiceId?: string; BillId?: string },
  ): void => {
    const cash = type === 'RECEIVE' && amount < 40_000 && rng() < 0.15;
    const mode = cash ? 'CASH' : amount >= 200_000 ? 'RTGS' : pick(rng, ['NEFT', 'NEFT', 'UPI', 'CHEQUE']);
    books.payments.push({
      PaymentId: books.newId(),
      PaymentNumber: '',
      Type: type,
      ContactId: c.ContactId,
      AccountId: cash ? A.cash : A.bank,
      Amount: round2(amount),
      Date: date,
      Reference:
        mode === 'CASH' ? null : mode === 'CHEQUE' ? `CHQ ${digits(rng, 6)}` : `UTR${digits(rng, 12)}`,
      PaymentMode: mode,
      Applications: [{ ...target, Amount: round2(amount) }],
      Status: 'ACTIVE',
      CreatedAt: stamp(date),
      UpdatedAt: stamp(date),
    });
  };

  for (let m = 0; m < 12; m++) {
    const start = monthStart(startDate, m);
    const lastDay = m === 11 ? daysBetween(start, asOf) + 1 : daysInMonth(start);
    const day = (d: number): string => addDays(start, Math.min(d, lastDay) - 1);
    let salesThisMonth = 0;

    // Sales invoices.
    for (let i = int(rng, 5, 8); i > 0; i--) {
      const c = pickCustomer();
      const date = day(int(rng, 1, lastDay));
      const Lines = productLines(int(rng, 1, 3), 1, 1);
      const t = lineTotals(Lines);
      salesThisMonth += t.SubTotal;
      books.invoices.push({
        InvoiceId: books.newId(),
        InvoiceNumber: '',
        ContactId: c.contact.ContactId,
        Date: date,
        DueDate: addDays(date, c.terms),
        Reference: rng() < 0.5 ? `PO-${digits(rng, 5)}` : null,
        Notes: null,
        Status: 'AUTHORISED',
        Lines,
        CurrencyCode: 'INR',
        SentToContact: true,
        SentTo: c.contact.Email,
        CreatedAt: stamp(date),
        UpdatedAt: stamp(date),
      });
    }

    // Purchase bills for goods (≈55% of sales), plus rent, electricity and freight.
    const billsThisMonth: { v: (typeof vendors)[number]; date: string; Lines: Line[] }[] = [];
    const goods = vendors.filter((v) => v.kind === 'goods');
    const nGoods = int(rng, 2, 3);
    for (let i = 0; i < nGoods; i++) {
      const share = (salesThisMonth * (0.5 + rng() * 0.1)) / nGoods;
      const lines = productLines(int(rng, 1, 3), 0.7, 1);
      const scale = share / Math.max(1, lineTotals(lines).SubTotal);
      const Lines = lines.map((l) =>
        makeLine({ ...l, Quantity: Math.max(1, Math.round(l.Quantity * scale)) }, A.purchases),
      );
      billsThisMonth.push({ v: pick(rng, goods), date: day(int(rng, 1, lastDay)), Lines });
    }
    const monthName = new Date(`${start}T00:00:00Z`).toLocaleString('en-IN', {
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    });
    const service = (
      kind: VendorKind,
      d: number,
      Description: string,
      amount: number,
      rate: number,
      accountId: string,
    ) => {
      const v = vendors.find((x) => x.kind === kind);
      if (v) {
        const Lines = [makeLine({ Description, Quantity: 1, UnitPrice: amount, TaxRate: rate }, accountId)];
        billsThisMonth.push({ v, date: day(d), Lines });
      }
    };
    service('rent', 1, `Shop and godown rent - ${monthName}`, 30_000, 18, A.rent);
    service('power', 6, `Electricity charges - ${monthName}`, 5_500 + int(rng, 0, 3_500), 0, A.electricity);
    service(
      'freight',
      25,
      `Freight and cartage - ${monthName}`,
      3_000 + int(rng, 0, 50) * 100,
      18,
      A.freight,
    );

    for (const b of billsThisMonth) {
      books.bills.push({
        BillId: books.newId(),
        BillNumber: '',
        ContactId: b.v.contact.ContactId,
        Date: b.date,
        DueDate: addDays(b.date, b.v.terms),
        Reference: `${b.v.ref}/${digits(rng, 4)}`,
        Status: 'AUTHORISED',
        Lines: b.Lines,
        CurrencyCode: 'INR',
        CreatedAt: stamp(b.date),
        UpdatedAt: stamp(b.date),
      });
    }

    // Month-end salaries and bank charges.
    const monthEnd = addDays(start, daysInMonth(start) - 1);
    if (monthEnd <= asOf) {
      journal(monthEnd, `Salaries for ${monthName}`, [
        [A.salaries, m < 6 ? 62_000 : 68_000, 0],
        [A.bank, 0, m < 6 ? 62_000 : 68_000],
      ]);
      const charges = int(rng, 150, 600);
      journal(monthEnd, `Bank charges for ${monthName}`, [
        [A.bankCharges, charges, 0],
        [A.bank, 0, charges],
      ]);
    }
  }

  // Number documents in date order.
  const byDate = <T extends { Date: string }>(xs: T[]): T[] =>
    xs.sort((a, b) => a.Date.localeCompare(b.Date));
  byDate(books.invoices).forEach((inv) => {
    inv.InvoiceNumber = nextNumber(books, 'INV');
  });
  byDate(books.bills).forEach((bill) => {
    bill.BillNumber = nextNumber(books, 'BILL');
  });
  // The latest purchase of goods still awaits approval.
  const goodsVendors = new Set(vendors.filter((v) => v.kind === 'goods').map((v) => v.contact.ContactId));
  const latestGoods = books.bills.findLast((b) => b.ContactId !== null && goodsVendors.has(b.ContactId));
  if (latestGoods) latestGoods.Status = 'SUBMITTED';

  // Two credit notes (goods returned), allocated to their invoices.
  const credited = new Map<string, number>();
  for (const at of [0.3, 0.62]) {
    const inv = books.invoices[Math.floor(books.invoices.length * at)];
    const first = inv?.Lines[0];
    if (!inv || !first) continue;
    const date = addDays(inv.Date, 4);
    if (date > asOf) continue;
    const line = makeLine(
      {
        ...first,
        Description: `Return: ${first.Description} (damaged in transit)`,
        Quantity: Math.max(1, Math.round(first.Quantity * 0.1)),
      },
      A.sales,
    );
    books.creditNotes.push({
      CreditNoteId: books.newId(),
      CreditNoteNumber: nextNumber(books, 'CN'),
      ContactId: inv.ContactId,
      InvoiceId: inv.InvoiceId,
      Date: date,
      Reason: 'Goods returned',
      Reference: inv.InvoiceNumber,
      Status: 'AUTHORISED',
      Lines: [line],
      CurrencyCode: 'INR',
      CreatedAt: stamp(date),
    });
    credited.set(inv.InvoiceId, line.LineAmount + line.TaxAmount);
  }

  // Customer receipts, by each customer's habits. A payment dated after asOf has not happened yet.
  for (const inv of books.invoices) {
    const c = customers.find((x) => x.contact.ContactId === inv.ContactId);
    if (!c) continue;
    const due = round2(lineTotals(inv.Lines).Total - (credited.get(inv.InvoiceId) ?? 0));
    const schedule: [number, string][] = [];
    switch (c.profile) {
      case 'prompt':
        schedule.push([due, addDays(inv.Date, int(rng, 3, Math.max(4, c.terms - 2)))]);
        break;
      case 'ontime':
        schedule.push([due, addDays(inv.DueDate, int(rng, -5, 10))]);
        break;
      case 'late':
        schedule.push([due, addDays(inv.DueDate, int(rng, 15, 60))]);
        break;
      case 'partial': {
        const part = Math.max(1_000, Math.round((due * (0.4 + rng() * 0.2)) / 1_000) * 1_000);
        schedule.push([Math.min(part, due), addDays(inv.Date, int(rng, 10, 25))]);
        if (part < due) schedule.push([round2(due - part), addDays(inv.DueDate, int(rng, 20, 70))]);
        break;
      }
      case 'slow':
        if (rng() < 0.6) schedule.push([due, addDays(inv.DueDate, int(rng, 30, 90))]);
        break;
    }
    for (const [amount, date] of schedule) {
      if (date <= asOf && date > inv.Date)
        payment('RECEIVE', c.contact, date, amount, { InvoiceId: inv.InvoiceId });
    }
  }

  // Bill payments.
  for (const bill of books.bills) {
    const v = vendors.find((x) => x.contact.ContactId === bill.ContactId);
    if (!v || bill.Status !== 'AUTHORISED') continue;
    const late = rng() < 0.45;
    const offset = {
      goods: late ? int(rng, 15, 60) : int(rng, -10, 5),
      rent: -1,
      power: -2,
      freight: int(rng, 0, 10),
    }[v.kind];
    const date = addDays(bill.DueDate, offset);
    if (date <= asOf && date >= bill.Date) {
      payment('SPEND', v.contact, date, lineTotals(bill.Lines).Total, { BillId: bill.BillId });
    }
  }

  // Monthly GST settlement on the 20th for the previous month; unused input credit carries forward.
  const taxIn = (docs: { Date: string; Lines: Line[]; Status: string }[], month: string): number =>
    sum(
      docs
        .filter((d) => d.Status === 'AUTHORISED' && d.Date.startsWith(month))
        .map((d) => lineTotals(d.Lines).TotalTax),
    );
  let carry = 0;
  for (let m = 0; m < 12; m++) {
    const date = addDays(monthStart(startDate, m + 1), 19);
    if (date > asOf) break;
    const month = monthStart(startDate, m).slice(0, 7);
    const output = round2(taxIn(books.invoices, month) - taxIn(books.creditNotes, month));
    const input = round2(taxIn(books.bills, month) + carry);
    const used = Math.min(input, output);
    carry = round2(input - used);
    if (output <= 0) continue;
    journal(date, `GST settlement for ${month}`, [
      [A.gstOutput, output, 0],
      [A.gstInput, 0, used],
      [A.bank, 0, round2(output - used)],
    ]);
  }

  // Cash received in a month is deposited in the bank at month end.
  for (let m = 0; m < 12; m++) {
    const start = monthStart(startDate, m);
    const end = addDays(start, daysInMonth(start) - 1);
    const received = sum(
      books.payments
        .filter((p) => p.AccountId === A.cash && p.Date.startsWith(start.slice(0, 7)))
        .map((p) => p.Amount),
    );
    if (end <= asOf && received > 0) {
      journal(end, 'Cash deposited in bank', [
        [A.bank, received, 0],
        [A.cash, 0, received],
      ]);
    }
  }

  byDate(books.payments).forEach((p) => {
    p.PaymentNumber = nextNumber(books, 'PMT');
  });
  byDate(books.journals).forEach((j) => {
    j.JournalNumber = nextNumber(books, 'JE');
  });
  return books;
}
