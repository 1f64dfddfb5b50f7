import { seedBooks } from '@munim/demo-books';
import { describe, expect, it } from 'vitest';
import { taxIssues } from '../src/tax/checks.ts';
import { checkChar, gstin, indiaBooks, pan, rng } from './tax-support.ts';

const books = indiaBooks();
const codes = (args: Record<string, unknown>) => taxIssues(args, books).map((i) => i.code);

const STATES = [
  '01',
  '04',
  '07',
  '09',
  '19',
  '24',
  '26',
  '27',
  '29',
  '32',
  '33',
  '36',
  '37',
  '38',
  '97',
  '99',
];

/** 30+ valid GSTINs: the demo books' own (their generator), and generated ones over states and PANs. */
function validGstins(): string[] {
  const r = rng(7);
  const out = seedBooks({ asOf: new Date('2025-12-01') }).contacts.flatMap((c) => (c.GSTIN ? [c.GSTIN] : []));
  for (let i = 0; out.length < 40; i++)
    out.push(gstin(STATES[i % STATES.length] ?? '27', pan(r), String((i % 9) + 1)));
  // An entity number past 9, a tax deductor's on its TAN (D), an e-commerce operator's (C), and
  // the special registrations: a government department, a non-resident, a foreign online service
  // provider (OIDAR), a UN body.
  const withCheck = (body: string) => body + checkChar(body);
  out.push(gstin('27', pan(r), 'A'), gstin('07', 'DELA12345B', '1', 'D'), gstin('29', pan(r), '1', 'C'));
  out.push(withCheck('07DELA12345B1Z'), withCheck('2719USA00012NR'), withCheck('9917SGP29001OS'));
  out.push(withCheck('0717UNO00157UN'));
  return out;
}

/** 30+ wrong GSTINs, each by one kind of fault, named. */
function invalidGstins(): [string, string][] {
  const r = rng(11);
  const out: [string, string][] = [];
  for (let i = 0; i < 6; i++) {
    const good = gstin(STATES[i] ?? '27', pan(r));
    const wrong = good.at(-1) === 'A' ? 'B' : 'A';
    out.push([`${good.slice(0, -1)}${wrong}`, 'wrong check character']);
    const at = 2 + (i % 10);
    const typo =
      good.charAt(at) === '5' ? '6' : good.charAt(at) === 'Q' ? 'R' : /\d/.test(good.charAt(at)) ? '5' : 'Q';
    out.push([`${good.slice(0, at)}${typo}${good.slice(at + 1)}`, 'one character mistyped']);
    out.push([
      `${good.slice(0, 4)}${good.charAt(5)}${good.charAt(4)}${good.slice(6)}`,
      'two letters swapped',
    ]);
  }
  for (const state of ['00', '39', '40', '50', '96', '98'])
    out.push([gstin(state, pan(r)), `state code ${state}`]);
  for (const kind of ['D', 'I', 'K', 'M', 'X'])
    out.push([gstin('27', pan(r, kind)), `PAN holder kind ${kind}`]);
  out.push([gstin('27', pan(r)).slice(0, 14), 'fourteen characters']);
  out.push([`${gstin('27', pan(r))}1`, 'sixteen characters']);
  out.push([gstin('27', pan(r), '0'), 'entity number 0']);
  out.push([gstin('27', pan(r), '1', 'Y'), 'fourteenth character Y']);
  out.push([
    `${'9817SGP29001OS'}${checkChar('9817SGP29001OS')}`,
    'a foreign online provider outside state 99',
  ]);
  out.push(['27AAKC54821M1ZW', 'a digit where a letter belongs']);
  out.push(['2AAAKCS4821M1ZW', 'a letter in the state code']);
  out.push(['GSTIN-PENDING', 'not a GSTIN']);
  return out;
}

describe('GSTINs, by format, state code, embedded PAN and check character', () => {
  it('the independent check character agrees with the demo books’ generator', () => {
    for (const id of validGstins().slice(0, 5)) expect(checkChar(id.slice(0, 14))).toBe(id.at(-1));
  });

  const valid = validGstins();
  it(`passes ${valid.length} valid GSTINs, in every field style`, () => {
    expect(valid.length).toBeGreaterThanOrEqual(30);
    const styles = ['GSTIN', 'gst_no', 'taxNumber', 'gstin', 'GstNumber', 'tax_registration_number'];
    valid.forEach((id, i) => {
      const key = styles[i % styles.length] ?? 'gstin';
      expect(codes({ customer: { name: 'X', [key]: id } }), `${key}: ${id}`).toEqual([]);
    });
    expect(codes({ gstin: valid[0]?.toLowerCase() })).toEqual([]);
    expect(codes({ gstin: `${valid[1]?.slice(0, 2)} ${valid[1]?.slice(2)}` })).toEqual([]);
  });

  const invalid = invalidGstins();
  it(`blocks ${invalid.length} invalid GSTINs, each kind of fault, naming the field and the value`, () => {
    expect(invalid.length).toBeGreaterThanOrEqual(30);
    for (const [id, fault] of invalid) {
      const issues = taxIssues({ contact: { gst_no: id } }, books);
      expect(
        issues.map((i) => i.code),
        `${fault}: ${id}`,
      ).toEqual(['gstin_invalid']);
      expect(issues[0]?.field).toBe('contact.gst_no');
      expect(issues[0]?.message).toContain(id);
    }
  });

  it('says which character a mistyped GSTIN should end with', () => {
    const [issue] = taxIssues({ GSTIN: '27AAKCS4821M1ZA' }, books);
    expect(issue?.message).toBe(
      'The GSTIN in GSTIN (27AAKCS4821M1ZA) has the check character A, but its other characters give W: a character is mistyped.',
    );
  });

  it('takes state code 25 only before Daman and Diu merged into 26 (26 January 2020)', () => {
    const id = gstin('25', 'AAKCS4821M');
    expect(taxIssues({ gstin: id, invoice_date: '2019-06-01' }, books)).toEqual([]);
    expect(taxIssues({ gstin: id, invoice_date: '2021-06-01' }, books).map((i) => i.code)).toEqual([
      'gstin_invalid',
    ]);
  });
});

describe('PANs', () => {
  const r = rng(3);
  const valid = Array.from({ length: 33 }, () => pan(r));
  it(`passes ${valid.length} valid PANs of every holder kind, in every field style`, () => {
    const styles = ['PAN', 'pan_no', 'panNumber', 'permanent_account_number', 'owner.pan'];
    valid.forEach((p, i) => {
      const key = styles[i % styles.length] ?? 'pan';
      const args = key.includes('.') ? { owner: { pan: p } } : { [key]: p };
      expect(codes(args), `${key}: ${p}`).toEqual([]);
    });
  });

  const invalid: [string, string][] = [
    ...['D', 'I', 'K', 'M', 'N', 'O', 'Q', 'R', 'S', 'U', 'V', 'W', 'X', 'Y', 'Z'].map(
      (k): [string, string] => [pan(r, k), `holder kind ${k}`],
    ),
    ...Array.from({ length: 5 }, (): [string, string] => [pan(r).slice(0, 9), 'nine characters']),
    ...Array.from({ length: 5 }, (): [string, string] => [`${pan(r)}Z`, 'eleven characters']),
    ...Array.from({ length: 5 }, (): [string, string] => {
      const p = pan(r);
      return [`${p.slice(0, 5)}${p.slice(5, 8)}X${p.slice(9)}`, 'a letter among the digits'];
    }),
    ['1AKCS4821M', 'a digit among the first letters'],
    ['AAKCS48211', 'a digit at the end'],
    ['PENDING', 'not a PAN'],
  ];
  it(`blocks ${invalid.length} invalid PANs`, () => {
    expect(invalid.length).toBeGreaterThanOrEqual(30);
    for (const [p, fault] of invalid)
      expect(codes({ pan_number: p }), `${fault}: ${p}`).toEqual(['pan_invalid']);
  });

  it('blocks a PAN beside a GSTIN that holds another PAN', () => {
    const issues = taxIssues({ customer: { gstin: gstin('27', 'AAKCS4821M'), pan: 'AAKCS4821N' } }, books);
    expect(issues.map((i) => [i.code, i.field])).toEqual([['pan_invalid', 'customer.pan']]);
    expect(issues[0]?.message).toContain('AAKCS4821M');
    expect(taxIssues({ customer: { gstin: gstin('27', 'AAKCS4821M'), pan: 'AAKCS4821M' } }, books)).toEqual(
      [],
    );
  });
});

describe('HSN and SAC codes', () => {
  const valid = [
    '8471',
    '847130',
    '84713010',
    '1006',
    '0401',
    '9983',
    '998314',
    '9954',
    '9403 20 90',
    '2106.90.20',
    8471,
  ];
  const invalid = [
    '847',
    '84713',
    '8471301',
    '847130101',
    '0012',
    '00',
    '9983141',
    '99831410',
    'ABCD',
    '84-7A',
  ];
  it('passes 4, 6 and 8 digit HSN codes and 4 or 6 digit SAC codes, in every field style', () => {
    const styles = ['HSN', 'hsn_sac', 'hsnCode', 'sac_code', 'HsnOrSac'];
    for (const [i, code] of valid.entries())
      expect(codes({ items: [{ [styles[i % styles.length] ?? 'hsn']: code }] }), String(code)).toEqual([]);
  });
  it('blocks codes of the wrong shape', () => {
    for (const code of invalid) expect(codes({ lines: [{ hsn_code: code }] }), code).toEqual(['hsn_invalid']);
    expect(taxIssues({ lines: [{ hsn_code: '84713' }] }, books)[0]?.message).toBe(
      'The HSN/SAC in lines[0].hsn_code (84713) is not in the format of an HSN/SAC (4, 6 or 8 digits for goods; 99 and 2 or 4 more digits for services).',
    );
  });
});
