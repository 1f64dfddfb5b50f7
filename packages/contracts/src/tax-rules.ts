import { z } from 'zod';

/**
 * A country's tax rules as data, each in force from a date: its rates, its tax identifiers' formats,
 * its regions (India's states), and how its tax splits between a sale within a region and one
 * across regions. The agent reads them from the database and hands them to the validator with each
 * call ({@link BooksContextSchema}); another country is more rows, not more code.
 */

const IsoDateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** When a rule holds: from `from` (inclusive) to `to` (exclusive); open-ended without `to`. */
const InForce = { from: IsoDateSchema, to: IsoDateSchema.optional() };

/** A tax rate in percent, in force over its dates; `productCodes` limits it to goods whose code starts so. */
export const TaxRateRuleSchema = z.object({
  kind: z.literal('rate'),
  ...InForce,
  rate: z.number().min(0).max(100),
  /** Product code prefixes (India: HSN) the rate is limited to; any product when absent. */
  productCodes: z.array(z.string().max(16)).max(200).optional(),
  note: z.string().max(300).optional(),
});

/**
 * The format of an identifier: a tax registration (GSTIN, TRN), a person's or company's number
 * (PAN), or a product's classification (HSN/SAC). Its fields are found by the words of their names.
 */
export const TaxIdRuleSchema = z.object({
  kind: z.literal('identifier'),
  ...InForce,
  /** What people call it: `GSTIN`, `PAN`, `HSN/SAC`, `TRN`. */
  name: z.string().min(1).max(40),
  role: z.enum(['registration', 'person', 'product']),
  /** Field names (snake words) that hold it, beside the generic ones of its role (`tax_id`, `tax_number`). */
  fieldWords: z.array(z.string().max(40)).max(40),
  /** Its format in words, for messages: `15 characters: state code, PAN, entity number, Z, check character`. */
  format: z.string().max(200).optional(),
  /** Regular expressions (upper case, spaces removed) of which the value must match one. */
  patterns: z.array(z.string().max(300)).min(1).max(10),
  /** The check character's algorithm, if it has one: `mod36` is the GSTIN's (Luhn mod 36 over 0-9A-Z). */
  checksum: z.enum(['mod36']).optional(),
  /** Where the region code sits in the value (a GSTIN's first two digits are its state). */
  regionAt: z.object({ start: z.number().int().min(0), length: z.number().int().min(1) }).optional(),
  /** Another identifier it holds when it matches its first pattern (a GSTIN its PAN at 2…11), checked by that one's patterns. */
  embeds: z
    .object({ name: z.string().max(40), start: z.number().int().min(0), length: z.number().int().min(1) })
    .optional(),
});

/** A region of the country (India: a state or union territory) and its code. */
export const TaxRegionRuleSchema = z.object({
  kind: z.literal('region'),
  ...InForce,
  code: z.string().min(1).max(8),
  name: z.string().min(1).max(80),
  /** Other names it is written as (`MH`, `Orissa`). */
  aliases: z.array(z.string().max(80)).max(10).optional(),
});

/**
 * How the tax is charged within a region and across regions (India: CGST+SGST or CGST+UTGST within
 * a state, IGST across states; never both). Within-region components each take an equal share.
 */
export const TaxSplitRuleSchema = z.object({
  kind: z.literal('split'),
  ...InForce,
  /** Components of a supply within the region, taken in pairs: the first and one of the others. */
  within: z.array(z.string().min(1).max(16)).min(1).max(6),
  /** Components of a supply across regions. */
  across: z.array(z.string().min(1).max(16)).min(1).max(6),
  /**
   * Words that make a supply one across regions whatever the states, when a value of the call says
   * them (India: a supply to an SEZ is inter-state).
   */
  acrossWhen: z.array(z.string().min(1).max(60)).max(20).optional(),
});

export const TaxRuleSchema = z.discriminatedUnion('kind', [
  TaxRateRuleSchema,
  TaxIdRuleSchema,
  TaxRegionRuleSchema,
  TaxSplitRuleSchema,
]);
export type TaxRule = z.infer<typeof TaxRuleSchema>;
export type TaxRateRule = z.infer<typeof TaxRateRuleSchema>;
export type TaxIdRule = z.infer<typeof TaxIdRuleSchema>;
export type TaxRegionRule = z.infer<typeof TaxRegionRuleSchema>;
export type TaxSplitRule = z.infer<typeof TaxSplitRuleSchema>;

/**
 * The business whose books a write goes to, as the validator needs it to check the write against
 * the law: its country, its region and tax registration, today's date where it is, and its
 * country's tax rules with their dates. The agent sends it with every validation; without it only
 * the arithmetic of a document's lines is checked.
 */
export const BooksContextSchema = z.object({
  /** ISO 3166 alpha-2 code of the business's country (`IN`). */
  country: z.string().regex(/^[A-Z]{2}$/),
  /** The country's name (`India`): a record saying another country holds another country's identifiers. */
  countryName: z.string().max(80).optional(),
  /** The business's region (India: its GST state, by code `27` or name `Maharashtra`), when known. */
  region: z.string().max(80).optional(),
  /** The business's tax registration (India: its GSTIN), when known. */
  taxId: z.string().max(32).optional(),
  /** Today in the business's timezone (YYYY-MM-DD): the date of a document that names none. */
  today: IsoDateSchema,
  /** The indirect tax's name (`GST`, `VAT`): a word its fields are named with (`gst_rate`). */
  taxName: z.string().max(40).optional(),
  /** ISO 4217 code of the books' currency, for the figures in messages. */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
  /** BCP 47 locale the figures in messages are written in (`en-IN`). */
  locale: z.string().max(35).optional(),
  /** The country's tax rules, each with the dates it is in force. */
  rules: z.array(TaxRuleSchema).max(1000),
});
export type BooksContext = z.infer<typeof BooksContextSchema>;
