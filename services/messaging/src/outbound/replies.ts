import type { Outcome } from '../ask.ts';
import { forPhone, type PhoneAnswer } from '../format/for-phone.ts';
import type { Outgoing } from './outbox.ts';

/** The longest body of an interactive message the Cloud API takes. */
const BUTTON_BODY_MAX = 1024;

/** A button's id: what it does, and the action or approval it is bound to. */
export type ButtonAction = 'confirm' | 'cancel' | 'approve' | 'reject';

export const buttonId = (action: ButtonAction, id: string): string => `${action}:${id}`;

/** The action and id a tapped button carries, or null for one munim never made. */
export function readButton(id: string): { action: ButtonAction; id: string } | null {
  const match = /^(confirm|cancel|approve|reject):([A-Za-z0-9_.:-]{1,200})$/.exec(id);
  return match ? { action: match[1] as ButtonAction, id: match[2] as string } : null;
}

/** Replies for a phone, and which of them (by index) is a card whose buttons answer `actionId`. */
export interface Replies {
  messages: Outgoing[];
  card?: { index: number; actionId: string };
}

/** A CSV list goes as a text file named .csv: the Cloud API takes text/plain, not text/csv. */
function documentOf(answer: PhoneAnswer): Outgoing[] {
  if (!answer.document) return [];
  const { filename, content, caption } = answer.document;
  return [{ kind: 'document', document: { filename, mimeType: 'text/plain', content, caption } }];
}

const texts = (bodies: readonly string[]): Outgoing[] => bodies.map((body) => ({ kind: 'text', body }));

/**
 * What a phone is sent for a request's outcome: the answer in a phone's form (no markdown tables
 * or card blocks; long lists as a CSV file), and a proposed change as a card — reply buttons bound
 * to its action for tiers 1 and 2, the word to type (and a Cancel button) for tier 3.
 */
export function repliesFor(outcome: Outcome): Replies {
  const { complete, mcq, error } = outcome;
  if (!complete) {
    return {
      messages: texts([error?.message ?? 'Sorry, I could not answer that just now. Please try again.']),
    };
  }
  const answer = forPhone(complete.response);
  if (!mcq || complete.status !== 'awaiting_confirmation') {
    const bodies = answer.texts.length > 0 ? answer.texts : ['Done.'];
    return { messages: [...texts(bodies), ...documentOf(answer)] };
  }
  const bodies = [...answer.texts];
  const typed =
    mcq.tier >= 3 && mcq.confirm_text ? `\n\nTo confirm, type *${mcq.confirm_text}*. Or tap Cancel.` : '';
  const last = bodies.at(-1);
  const fits = last !== undefined && last.length + typed.length <= BUTTON_BODY_MAX;
  const body = `${fits ? (bodies.pop() as string) : 'Confirm this change?'}${typed}`;
  const messages = [...texts(bodies), ...documentOf(answer)];
  return {
    messages: [
      ...messages,
      {
        kind: 'buttons',
        body,
        // Tier 3 is confirmed only by the typed word: its card has no Confirm button.
        buttons: [
          ...(typed ? [] : [{ id: buttonId('confirm', mcq.actionId), title: 'Confirm' }]),
          { id: buttonId('cancel', mcq.actionId), title: 'Cancel' },
        ],
      },
    ],
    card: { index: messages.length, actionId: mcq.actionId },
  };
}
