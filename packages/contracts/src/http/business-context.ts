import { z } from 'zod';
import { IdSchema } from '../envelope.ts';

/**
 * `/v1/admin/entities/:entityId/business-context?orgId=` and `…/lock-date?orgId=`: how a tenant's
 * business writes money and dates, where it is registered, and the last day of its closed books.
 */

const GSTIN_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Whether `gstin` is an Indian GST registration: its shape and its check character. */
export function isGstin(gstin: string): boolean {
  if (!/^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/.test(gstin)) return false;
  let sum = 0;
  for (let i = 0; i < 14; i++) {
    const product = GSTIN_CHARS.indexOf(gstin[i] as string) * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(product / 36) + (product % 36);
  }
  return gstin[14] === GSTIN_CHARS[(36 - (sum % 36)) % 36];
}

/** A calendar date, `YYYY-MM-DD`, that exists. */
export const CalendarDateSchema = z.iso.date().describe('A calendar date, YYYY-MM-DD.');

const validLocale = (value: string) => {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
};

const validTimeZone = (value: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

const validCurrency = (value: string) => Intl.supportedValuesOf('currency').includes(value);

/**
 * The body of `PUT …/business-context`: the fields to set. A field left out keeps its value; null
 * clears an override (the country's own setting applies again).
 */
export const BusinessContextInputSchema = z
  .object({
    companyName: z.string().trim().min(1).max(200).nullable().optional(),
    countryCode: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be a two-letter ISO 3166 country code, e.g. IN')
      .optional(),
    currency: z
      .string()
      .refine(validCurrency, 'must be an ISO 4217 currency code, e.g. INR')
      .nullable()
      .optional(),
    locale: z
      .string()
      .max(35)
      .refine(validLocale, 'must be a BCP 47 locale, e.g. en-IN')
      .nullable()
      .optional(),
    fyStartMonth: z
      .number()
      .int()
      .min(1, 'must be a month, 1 (January) to 12 (December)')
      .max(12, 'must be a month, 1 (January) to 12 (December)')
      .nullable()
      .optional(),
    timezone: z
      .string()
      .max(64)
      .refine(validTimeZone, 'must be an IANA time zone, e.g. Asia/Kolkata')
      .nullable()
      .optional(),
    state: z.string().trim().min(1).max(64).nullable().optional(),
    gstin: z
      .string()
      .trim()
      .toUpperCase()
      .refine(isGstin, 'must be a GSTIN: 15 characters, its state code, PAN and check character')
      .nullable()
      .optional(),
  })
  .strict();
export type BusinessContextInput = z.infer<typeof BusinessContextInputSchema>;

/** A tenant's business context as in force: its own settings over its country's. */
export const BusinessContextViewSchema = z.object({
  entityId: z.string(),
  orgId: z.string(),
  /** False: the tenant has no settings of its own and these are the defaults. */
  configured: z.boolean(),
  companyName: z.string().nullable(),
  countryCode: z.string(),
  countryName: z.string(),
  currency: z.string(),
  locale: z.string(),
  /** The short date pattern of the locale, e.g. DD/MM/YYYY. */
  dateFormat: z.string(),
  fyStartMonth: z.number().int(),
  timezone: z.string(),
  taxName: z.string(),
  state: z.string().nullable(),
  gstin: z.string().nullable(),
  /** The last day of the closed books, `YYYY-MM-DD`; null: nothing is closed. */
  lockDate: z.string().nullable(),
});
export type BusinessContextView = z.infer<typeof BusinessContextViewSchema>;

/** The body of `PUT …/lock-date`: the last day of the closed books, or null to close none. */
export const LockDateInputSchema = z
  .object({
    lockDate: CalendarDateSchema.nullable(),
  })
  .strict();
export type LockDateInput = z.infer<typeof LockDateInputSchema>;

/** A tenant's lock date, who set it and when, and the date in the business's own words. */
export const LockDateViewSchema = z.object({
  entityId: z.string(),
  orgId: z.string(),
  lockDate: z.string().nullable(),
  /** The lock date as the business writes a date in full, e.g. "31 October 2026". */
  lockDateText: z.string().nullable(),
  updatedBy: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type LockDateView = z.infer<typeof LockDateViewSchema>;

/** The entity of `…/entities/:entityId/business-context` and `…/lock-date`. */
export const BusinessEntityParamsSchema = z.object({ entityId: IdSchema }).strict();
