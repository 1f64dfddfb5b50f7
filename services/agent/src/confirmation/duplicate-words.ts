// The record a new one likely repeats, in words a person can check: its name or number, its party,
// amount and date, its GSTIN and when it was created.
import type { Formats } from '../render/locale.ts';
import { NARRATION, nameOf, taxIds, values } from './duplicate-facts.ts';
import { readFacts } from './fields.ts';
import { keyWords, readDate, text } from './words.ts';

/** When a record was created, by meaning (`CreatedAt`, `created_time`, `MetaData.CreateTime`). */
function createdOf(record: Record<string, unknown>): string | undefined {
  for (const [words, v] of values(record, [], 2)) {
    if (words.some((w) => w === 'created' || w === 'create' || w === 'creation')) {
      const date = readDate(v);
      if (date) return date;
    }
  }
  return undefined;
}

/** A party record in words: "Acme Corp Pvt Ltd, GSTIN 27AABCA1234B1Z5, created 3 Nov 2026". */
export function partyInWords(record: Record<string, unknown>, fmt: Formats): string {
  const { gstins, pans } = taxIds(record);
  const [gstin] = gstins;
  const [pan] = pans;
  const created = createdOf(record);
  const when = created ? fmt.longDate(created) : undefined;
  return [
    nameOf(record) ?? 'a party without a name',
    ...(gstin ? [`GSTIN ${gstin}`] : pan ? [`PAN ${pan}`] : []),
    ...(when ? [`created ${when}`] : []),
  ].join(', ');
}

/** An entry of the books in words: "Payment of ₹4,500.00 for Bolt Ltd on 12 Nov 2026 (ref UTR123)". */
export function entryInWords(record: Record<string, unknown>, noun: string, fmt: Formats): string {
  const facts = readFacts(record, noun);
  const kind = noun.replace(/_/g, ' ');
  const reference = Object.entries(record).find(
    ([k, v]) => text(v) && keyWords(k).some((w) => w === 'reference' || w === 'ref' || w === 'utr'),
  )?.[1];
  const when = facts.date ? fmt.longDate(facts.date) : undefined;
  const narration = Object.entries(record).find(
    ([k, v]) => text(v) && keyWords(k).length === 1 && NARRATION.has(keyWords(k)[0] ?? ''),
  )?.[1];
  const words = [
    `${kind.charAt(0).toUpperCase()}${kind.slice(1)}`,
    ...(facts.number && facts.number !== reference ? [facts.number] : []),
    ...(facts.amount !== undefined ? [`of ${fmt.money(facts.amount, facts.currency)}`] : []),
    ...(facts.party ? [`for ${facts.party}`] : []),
    ...(when ? [`on ${when}`] : []),
    ...(typeof reference === 'string' ? [`(ref ${reference.trim()})`] : []),
    ...(!facts.party && narration ? [`(${narration})`] : []),
  ];
  return words.join(' ');
}
