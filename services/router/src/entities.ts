import { normalize } from './classifier.ts';

const DOC_NUMBER = /\b(INV|BILL|PAY|CN|JE|PO|SO)-?\d{1,10}\b/gi;
const AMOUNT = /(?:₹|\brs\.?|\binr)\s*([\d,]+(?:\.\d+)?)|([\d,]+(?:\.\d+)?)\s*(?:rupees|rs\b|inr\b)/gi;

/** Structured entities a router can read off a query without an LLM: document numbers and amounts. */
export function extractEntities(query: string): Record<string, unknown> {
  const entities: Record<string, unknown> = {};
  const docs = [...query.matchAll(DOC_NUMBER)].map((m) => m[0].toUpperCase());
  if (docs.length) entities.documentNumbers = [...new Set(docs)];
  const amounts = [...query.normalize('NFKC').matchAll(AMOUNT)]
    .map((m) => Number((m[1] ?? m[2] ?? '').replace(/,/g, '')))
    .filter((n) => Number.isFinite(n) && n > 0);
  if (amounts.length) entities.amounts = amounts;
  if (/\boverdue|past due|baaki\b/.test(normalize(query))) entities.overdue = true;
  return entities;
}
