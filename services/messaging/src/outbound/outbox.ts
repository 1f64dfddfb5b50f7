import type { Logger } from 'pino';
import { SERVICE_WINDOW_MS } from '../store.ts';
import type { OutgoingDocument, ReplyButton } from '../whatsapp/graph.ts';

/** What sends to a phone: the Cloud API client, or a test's stand-in. */
export interface PhoneSender {
  sendText(to: string, body: string, opts?: { replyTo?: string }): Promise<{ messageId: string }>;
  sendButtons(to: string, body: string, buttons: readonly ReplyButton[]): Promise<{ messageId: string }>;
  sendDocument(to: string, doc: OutgoingDocument): Promise<{ messageId: string }>;
  sendTemplate(to: string, name: string, language: string): Promise<{ messageId: string }>;
}

/** One message to a phone. */
export type Outgoing =
  | { kind: 'text'; body: string }
  | { kind: 'buttons'; body: string; buttons: ReplyButton[] }
  | { kind: 'document'; document: OutgoingDocument };

/** An approved template, sent instead when a person's 24-hour window is closed. */
export interface WindowTemplate {
  name: string;
  language: string;
}

/**
 * Sends inside WhatsApp's customer-service window only: free-form messages may go to a person
 * within 24 hours of their last message. Outside it, the configured template goes instead (once
 * per batch), or nothing does, and that is logged.
 */
export class Outbox {
  readonly #sender: PhoneSender;
  readonly #log: Logger;
  readonly #template: WindowTemplate | undefined;

  constructor(sender: PhoneSender, log: Logger, template?: WindowTemplate) {
    this.#sender = sender;
    this.#log = log;
    this.#template = template;
  }

  /**
   * Sends `messages` in order to `phone`, whose last message came at `lastInbound`: the ids of the
   * messages sent, in order; none when the window was closed (then `template` is the id of the
   * template sent instead, if one is configured).
   */
  async send(
    phone: string,
    lastInbound: Date | null,
    messages: readonly Outgoing[],
    now = new Date(),
  ): Promise<{ ids: string[]; template?: string }> {
    if (messages.length === 0) return { ids: [] };
    if (lastInbound === null || now.getTime() - lastInbound.getTime() > SERVICE_WINDOW_MS) {
      if (!this.#template) {
        this.#log.warn(
          { to: masked(phone), messages: messages.length },
          'not sent: the 24-hour window is closed and no template is configured',
        );
        return { ids: [] };
      }
      const sent = await this.#sender.sendTemplate(phone, this.#template.name, this.#template.language);
      this.#log.info({ to: masked(phone), template: this.#template.name }, 'window closed: template sent');
      return { ids: [], template: sent.messageId };
    }
    const ids: string[] = [];
    for (const message of messages) {
      const sent =
        message.kind === 'text'
          ? await this.#sender.sendText(phone, message.body)
          : message.kind === 'buttons'
            ? await this.#sender.sendButtons(phone, message.body, message.buttons)
            : await this.#sender.sendDocument(phone, message.document);
      ids.push(sent.messageId);
    }
    return { ids };
  }
}

/** A number as logs show it: its country code and last two digits. */
export function masked(phone: string): string {
  return phone.length > 6 ? `${phone.slice(0, 3)}…${phone.slice(-2)}` : '…';
}
