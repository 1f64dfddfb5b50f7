import { fieldKey, type TaxIdRule } from '@munim/contracts';
import { squash, type TaxBook } from './book.ts';
import { type Found, fieldsWhere } from './read.ts';

/**
 * Field words every country's registration number is found by, beside its own (`gstin`, `trn`).
 * Not `tax_id`: servers name the id of a tax rate so (Zoho Books' line `tax_id`).
 */
const REGISTRATION_WORDS = [
  'tax_number',
  'tax_registration_number',
  'tax_reg_no',
  'tax_identification_number',
];

/** Whether a field's name holds one of the words (as whole words): `customer_gst_no` holds `gst_no`. */
const holds = (key: string, words: readonly string[]) => {
  const k = `_${fieldKey(key)}_`;
  return words.some((w) => k.includes(`_${w}_`));
};

/** The country a record says it is of (`country`, `country_code`, `billingCountry`), if it says one. */
function countryOf(record: Record<string, unknown> | undefined): string | undefined {
  for (const [key, value] of Object.entries(record ?? {})) {
    const k = fieldKey(key);
    if ((k.endsWith('country') || k.endsWith('country_code')) && typeof value === 'string' && value.trim())
      return squash(value);
  }
  return undefined;
}

/**
 * The fields of the call that hold the identifier of `rule`: by the words of their names, or by
 * what the tool's schema says of them. A field in a record of another country (an export
 * customer's `tax_id` beside `country: "US"`) is that country's identifier, not this one's.
 */
export function idFields(args: Record<string, unknown>, rule: TaxIdRule, book: TaxBook): Found[] {
  const words = rule.role === 'registration' ? [...rule.fieldWords, ...REGISTRATION_WORDS] : rule.fieldWords;
  const described = book.described?.get(rule.name);
  const ours = new Set([squash(book.books.country), squash(book.books.countryName ?? '')].filter(Boolean));
  return fieldsWhere(args, (key) => holds(key, words) || described?.has(key) === true).filter((f) => {
    if (typeof f.value !== 'string' && typeof f.value !== 'number') return false;
    const country = countryOf(f.parent);
    return country === undefined || ours.has(country);
  });
}
