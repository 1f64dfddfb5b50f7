import { z } from 'zod';

// The confirmation card: what the agent puts to the user before a risky write, in words. The `mcq`
// event carries its facts to clients, and the agent keeps them with the pending action to show the
// card again.

/** One fact of a card in words (the action, record, party, amount, date, the call's other values); never an id. */
export const CardDetailSchema = z.object({ label: z.string(), value: z.string() });
export type CardDetail = z.infer<typeof CardDetailSchema>;

/** A field a change sets: as it is now (when it could be read) and as it will be. */
export const CardChangeSchema = z.object({
  field: z.string(),
  before: z.string().optional(),
  after: z.string(),
});
export type CardChange = z.infer<typeof CardChangeSchema>;

/** A confirmation put to the user: its question and the facts a client shows beside it. */
export interface ConfirmationCard {
  question: string;
  /** The record the change acts on, in words (name, number or reference). */
  record?: string;
  details: CardDetail[];
  changes: CardChange[];
}
