import { fieldKey } from '@munim/contracts';

/**
 * What a field of a document or of one of its lines means for tax, from the words of its name in
 * any style (`TaxRate`, `gst_rate`, `tax_percent`, `cgst`, `LineAmount`, `grand_total`, `qty`,
 * `rate`, `place_of_supply`), given the words of the country's tax (`tax`, `gst`, `cgst`, `igst`).
 */
export type TaxRole =
  | { role: 'quantity' }
  | { role: 'price' }
  | { role: 'discount'; percent: boolean | undefined }
  | { role: 'rate'; component: string | undefined }
  | { role: 'tax'; component: string | undefined }
  | { role: 'kind' }
  | { role: 'inclusive' }
  | { role: 'amount' }
  | { role: 'subtotal' }
  | { role: 'total' }
  | { role: 'adjustment' }
  | { role: 'place' }
  | { role: 'state'; shipping: boolean };

const RATE_WORDS = new Set(['rate', 'rt', 'percent', 'percentage', 'pct', 'perc']);
const KIND_WORDS = new Set([
  'type',
  'treatment',
  'kind',
  'code',
  'name',
  'category',
  'scheme',
  'class',
  'applicable',
  'applicability',
]);
const NOT_AMOUNT = new Set([
  'id',
  'no',
  'num',
  'number',
  'registration',
  'reg',
  'exempt',
  'exemption',
  'status',
  'mode',
  'flag',
  'account',
  'ledger',
  'head',
  'group',
]);
const BEFORE_TAX = new Set(['before', 'excluding', 'excl', 'exclusive', 'without', 'pre', 'ex']);
const QUANTITY = /^(quantity|qty|hours|units|unit_count|no_of_units|number_of_units)$/;
const PRICE = /(^|_)(price|rate|cost)$|^unit_(amount|amt|value)$|^price_per_unit$/;
const NOT_PRICE = new Set(['exchange', 'conversion', 'fx', 'interest', 'currency', 'commission', 'total']);
const AMOUNTS = new Set([
  'amount',
  'line_amount',
  'amt',
  'net_amount',
  'taxable_value',
  'taxable_amount',
  'base_amount',
  'assessable_value',
]);
const ADJUSTMENT = new Set([
  'shipping',
  'freight',
  'packing',
  'packaging',
  'handling',
  'insurance',
  'adjustment',
  'roundoff',
  'rounding',
]);
/** Charges and roundings a document's total adds to its lines: `shipping_charge`, `round_off`, `other_charges`. */
const isAdjustment = (words: string[]) =>
  words.some((w) => ADJUSTMENT.has(w)) ||
  (words.includes('round') && words.includes('off')) ||
  (words.includes('other') && words.some((w) => w === 'charge' || w === 'charges'));
const PLACE = /^(place_of_supply|pos|supply_place|place_of_supply_code|place_of_supply_state|supply_state)$/;

/** The tax role of the field `name`, or undefined for a field that has none (an id, a note, a name). */
export function taxRole(name: string, taxWords: ReadonlySet<string>): TaxRole | undefined {
  const key = fieldKey(name);
  const words = key.split('_');
  const last = words.at(-1) ?? '';
  const taxWord = words.find((w) => taxWords.has(w));
  const component = taxWord && taxWord !== 'tax' && words.find((w) => taxWords.has(w) && w !== 'tax');
  if (
    words.includes('inclusive') ||
    (words.includes('include') && taxWord) ||
    key === 'line_amount_types' ||
    key === 'amounts_are'
  )
    return { role: 'inclusive' };
  if (PLACE.test(key)) return { role: 'place' };
  if (words.includes('discount'))
    return { role: 'discount', percent: RATE_WORDS.has(last) ? true : last === 'amount' ? false : undefined };
  if (taxWord && KIND_WORDS.has(last)) return { role: 'kind' };
  if (words.includes('inter') || words.includes('interstate') || words.includes('intra'))
    return { role: 'kind' };
  if (taxWord && RATE_WORDS.has(last)) return { role: 'rate', component: component || undefined };
  if (taxWord && words.some((w) => BEFORE_TAX.has(w)))
    return { role: words.includes('total') ? 'subtotal' : 'amount' };
  if (taxWord && !words.some((w) => NOT_AMOUNT.has(w)) && !words.includes('taxable'))
    return { role: 'tax', component: component || undefined };
  if (QUANTITY.test(key) || words.includes('quantity') || words.includes('qty')) return { role: 'quantity' };
  if (key === 'sub_total' || key === 'subtotal' || key.endsWith('sub_total') || words.includes('taxable'))
    return { role: words.includes('total') || key.includes('sub') ? 'subtotal' : 'amount' };
  if (words.includes('total') || words.includes('grand')) return { role: 'total' };
  if (last === 'state' || key === 'state_code' || key === 'state_name' || last === 'province') {
    const shipping = words.some((w) => w === 'ship' || w === 'shipping' || w === 'delivery');
    return { role: 'state', shipping };
  }
  if (isAdjustment(words)) return { role: 'adjustment' };
  if (AMOUNTS.has(key)) return { role: 'amount' };
  if (PRICE.test(key) && !words.some((w) => NOT_PRICE.has(w))) return { role: 'price' };
  return undefined;
}
