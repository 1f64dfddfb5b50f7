import { DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import { formatsFor } from '../src/render/locale.ts';

/** A US business's formats, and money as the US and India write it: what the renderer tests expect. */
export const us = formatsFor({
  ...DEFAULT_BUSINESS_CONTEXT,
  countryCode: 'US',
  currency: 'USD',
  currencySymbol: '$',
  locale: 'en-US',
  numberSystem: 'international',
  fyStartMonth: 1,
  timezone: 'UTC',
});
export const usd = (n: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 }).format(n);
export const inr = (n: number) =>
  new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2 }).format(n);
