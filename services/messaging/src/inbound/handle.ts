import type { Attachments } from '@munim/attachments';
import { ArchiveRefusedError, UnsupportedTypeError } from '@munim/attachments';
import type { Bus } from '@munim/bus';
import type { Actor, InboundMedia, MessagingInbound } from '@munim/contracts';
import type { QueryInput, Transcribe } from '@munim/kit';
import type { Logger } from 'pino';
import { ask, type Outcome, requestIdFor } from '../ask.ts';
import { masked, type Outbox, type Outgoing } from '../outbound/outbox.ts';
import { readButton, repliesFor } from '../outbound/replies.ts';
import { CHANNEL, type MessagingStore, type Sender } from '../store.ts';
import { WhatsAppMediaTooLargeError } from '../whatsapp/errors.ts';
import type { DownloadedMedia } from '../whatsapp/graph.ts';

/** What handling a phone's message needs. */
export interface HandlerDeps {
  bus: Bus;
  log: Logger;
  store: MessagingStore;
  outbox: Outbox;
  media: { downloadMedia(mediaId: string, maxBytes: number): Promise<DownloadedMedia> };
  /** Voice notes; unset: a voice note is answered with a request to type. */
  transcribe?: Transcribe | undefined;
  /** Documents and photos; unset: they are answered with what can be read. */
  attachments?: Attachments | undefined;
  config: {
    answerTimeoutMs: number;
    /** Largest voice note, in bytes. */
    sttMaxBytes: number;
    /** Largest document or photo, in bytes (the gateway's upload limit). */
    attachmentMaxBytes: number;
  };
  /** Aborted at shutdown: a question being answered is handed back to be answered again. */
  signal: AbortSignal;
}

type Message = Extract<MessagingInbound, { type: 'message' }>;

const NOT_REGISTERED =
  'Hello! This number is not registered with munim, so I cannot help with any books from it. ' +
  'If you work with a business that uses munim, ask its admin to add this number to your profile.';
const AMBIGUOUS =
  'This number belongs to more than one munim profile, so I cannot tell whose books to use. ' +
  'Ask your admin to keep the number on one profile only.';
const NO_ROLES = 'Your munim profile has no access to any books yet. Ask your admin to give you a role.';
const CANNOT_READ =
  'I can read text messages, voice notes, documents (PDF, Excel, CSV) and photos of bills. Please send one of those.';

/** A reply the person gets instead of an answer: nothing reaches the pipeline. */
class Refusal extends Error {
  override name = 'Refusal';
}

/** The question (or card answer) a message becomes, or a refusal in words. */
type Question = Omit<QueryInput, 'actor' | 'entityId' | 'orgId' | 'conversationId' | 'requestId'> & {
  tenant: { entityId: string; orgId: string; conversationId: string };
  /** The sender's roles for that tenant. */
  roles: Actor['roles'];
  /** Said first, before the answer (what a voice note was heard as). */
  preface?: string;
};

/**
 * Answers one message from a phone, once: the number names a user (or gets one polite refusal),
 * the message becomes a question, a card's answer or an approval through the same pipeline as the
 * gateway, and the outcome is sent back in a phone's form. A delivery seen again — by any instance,
 * however late — finds its record: answered, it is dropped; submitted, its request is followed again.
 */
export async function handleMessage(deps: HandlerDeps, message: Message): Promise<void> {
  const { store, log } = deps;
  const phone = message.from;
  const seen = await store.receive(message.messageId, phone);
  if (seen.answered) {
    log.info({ messageId: message.messageId }, 'delivery seen again: answered already');
    return;
  }
  const sender = await store.sender(phone);
  if ('reason' in sender) {
    await refuseSender(deps, message, sender.reason);
    return;
  }
  const conversation = await store.conversation(phone, sender, new Date(message.sentAt));
  const window = new Date(message.sentAt);
  const reply = (messages: Outgoing[]) => replyOnce(deps, message.messageId, phone, window, messages);
  let question: Question;
  try {
    question = await questionOf(deps, message, sender, conversation.conversationId);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    await reply([{ kind: 'text', body: error.message }]);
    await store.answered(message.messageId);
    return;
  }
  const requestId = await store.submitted(
    message.messageId,
    seen.requestId ?? requestIdFor(CHANNEL, message.messageId),
  );
  const { tenant, roles, preface, ...query } = question;
  const outcome = await ask(
    deps.bus,
    {
      ...query,
      requestId,
      entityId: tenant.entityId,
      orgId: tenant.orgId,
      conversationId: tenant.conversationId,
      channel: 'messaging',
      actor: { userId: sender.userId, roles, via: 'messaging' },
    },
    // Submitted again on a redelivery: the request id is its dedupe id, so a submission that went
    // through is stored once, and one an instance died before sending goes now.
    { timeoutMs: deps.config.answerTimeoutMs, signal: deps.signal },
  );
  if (outcome.error?.code === 'SERVICE_UNAVAILABLE' && deps.signal.aborted) {
    // Shutting down: handed back, and answered by whichever instance gets it next.
    throw new Error('shutting down before the answer');
  }
  const replies = repliesFor(outcome);
  const sent = await reply([
    ...(preface ? [{ kind: 'text' as const, body: preface }] : []),
    ...replies.messages,
  ]);
  await recordCard(deps, phone, tenant, replies, sent, preface ? 1 : 0);
  await store.answered(message.messageId);
  log.info(
    { messageId: message.messageId, requestId, to: masked(phone), status: statusOf(outcome) },
    'message answered',
  );
}

/**
 * Sends an answer's messages one by one, each recorded as soon as the channel took it; a message
 * handled again (its instance died mid-answer) sends only those not sent yet. The ids, in order.
 */
async function replyOnce(
  deps: HandlerDeps,
  messageId: string,
  phone: string,
  lastInbound: Date,
  messages: readonly Outgoing[],
): Promise<{ ids: string[] }> {
  const before = await deps.store.repliesSent(messageId);
  const ids: string[] = [];
  for (const [idx, outgoing] of messages.entries()) {
    const already = before.get(idx);
    if (already) {
      ids.push(already);
      continue;
    }
    const sent = await deps.outbox.send(phone, lastInbound, [outgoing]);
    const id = sent.ids[0];
    // The window closed (a template or nothing went): the rest would not go either.
    if (!id) break;
    await deps.store.replySent(messageId, idx, id);
    ids.push(id);
  }
  return { ids };
}

const statusOf = (outcome: Outcome) => outcome.complete?.status ?? outcome.error?.code ?? 'unknown';

async function recordCard(
  deps: HandlerDeps,
  phone: string,
  tenant: Question['tenant'],
  replies: ReturnType<typeof repliesFor>,
  sent: { ids: string[] },
  offset: number,
) {
  if (!replies.card) return;
  const sentMessageId = sent.ids[replies.card.index + offset];
  if (!sentMessageId) return;
  await deps.store.recordCard({
    sentMessageId,
    phone,
    kind: 'confirm',
    actionId: replies.card.actionId,
    entityId: tenant.entityId,
    orgId: tenant.orgId,
    conversationId: tenant.conversationId,
  });
}

async function refuseSender(
  deps: HandlerDeps,
  message: Message,
  reason: 'unknown' | 'ambiguous' | 'no_roles',
) {
  const { store, log } = deps;
  const phone = message.from;
  if (await store.mayRefuse(phone, new Date())) {
    const body = reason === 'unknown' ? NOT_REGISTERED : reason === 'ambiguous' ? AMBIGUOUS : NO_ROLES;
    await deps.outbox.send(phone, new Date(message.sentAt), [{ kind: 'text', body }]);
  }
  await store.answered(message.messageId);
  log.info({ to: masked(phone), reason }, 'message from a number that names no one: refused');
}

/** What a message asks, for the sender's current tenant (or, for a card's button, the card's). */
async function questionOf(
  deps: HandlerDeps,
  message: Message,
  sender: Sender,
  conversationId: string,
): Promise<Question> {
  const own = {
    tenant: { entityId: sender.entityId, orgId: sender.orgId, conversationId },
    roles: sender.roles,
  };
  const { content } = message;
  switch (content.kind) {
    case 'text':
      return { ...own, ...(await typedAnswer(deps, message.from, conversationId, content.text)) };
    case 'button':
      return buttonAnswer(deps, message, sender);
    case 'audio': {
      const text = await heard(deps, content.media);
      return { ...own, query: text, preface: `🎙️ I heard: “${text}”` };
    }
    case 'document':
    case 'image': {
      const attachmentId = await attach(deps, content.media, own.tenant);
      const what = content.kind === 'image' ? 'photo' : 'document';
      return {
        ...own,
        query: content.media.caption?.trim() || `Please read the attached ${what} and tell me what it is.`,
        attachmentIds: [attachmentId],
      };
    }
    case 'unsupported':
      throw new Refusal(CANNOT_READ);
  }
}

/**
 * Text: the word a tier-3 card asked for confirms that card's action; anything else is a
 * question (a "haan" confirms only the last proposal, as in the chat).
 */
async function typedAnswer(
  deps: HandlerDeps,
  phone: string,
  conversationId: string,
  text: string,
): Promise<Pick<Question, 'query' | 'mcqResponse'>> {
  const card = await deps.store.latestCard(phone, conversationId);
  if (card) {
    const word = await deps.store.confirmWord(card);
    if (word && text.trim().toUpperCase() === word) {
      return {
        query: text,
        mcqResponse: { actionId: card.actionId, value: 'confirm', typedConfirmation: text.trim() },
      };
    }
  }
  return { query: text };
}

/**
 * A tapped button answers the card it was on, and only while that card is the newest of its
 * conversation: a button from an older message never answers a newer action.
 */
async function buttonAnswer(deps: HandlerDeps, message: Message, sender: Sender): Promise<Question> {
  const { store } = deps;
  if (message.content.kind !== 'button') throw new Refusal(CANNOT_READ);
  const tapped = readButton(message.content.buttonId);
  const card = message.contextId ? await cardOf(store, message.from, message.contextId) : undefined;
  if (!tapped || !card || card.actionId !== tapped.id)
    throw new Refusal('That button does not belong to a card I sent you, so nothing was done.');
  if (card.kind === 'confirm') {
    const latest = await store.latestCard(message.from, card.conversationId);
    if (latest?.sentMessageId !== card.sentMessageId)
      throw new Refusal(
        'That button is from an older message, so nothing was done. Please use the buttons on the newest card.',
      );
  }
  const roles = await store.rolesFor(sender.userId, card);
  const tenant = { entityId: card.entityId, orgId: card.orgId, conversationId: card.conversationId };
  if (tapped.action === 'confirm' || tapped.action === 'cancel')
    return {
      tenant,
      roles,
      query: tapped.action === 'confirm' ? 'Confirm' : 'Cancel',
      mcqResponse: { actionId: card.actionId, value: tapped.action },
    };
  return {
    tenant,
    roles,
    query: `${tapped.action} ${card.actionId}`,
    approvalDecision: { approvalId: card.actionId, decision: tapped.action },
  };
}

/**
 * The card a button was on. A card is recorded just after it is sent, so a tap handled by another
 * instance in that moment looks again shortly before it is refused.
 */
async function cardOf(store: MessagingStore, phone: string, sentMessageId: string) {
  for (let attempt = 0; ; attempt++) {
    const card = await store.card(phone, sentMessageId);
    if (card || attempt >= 5) return card;
    await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
  }
}

/** A voice note's words, through munim's speech to text. */
async function heard(deps: HandlerDeps, media: InboundMedia): Promise<string> {
  if (!deps.transcribe)
    throw new Refusal(
      'I cannot listen to voice notes here yet (speech to text is not set up). Please type your question.',
    );
  const audio = await download(deps, media, deps.config.sttMaxBytes, 'voice note');
  let text: string;
  try {
    text = await deps.transcribe({
      bytes: audio.bytes,
      filename: `voice.${audio.mimeType.includes('ogg') ? 'ogg' : 'audio'}`,
      mimeType: audio.mimeType.split(';')[0]?.trim() || 'audio/ogg',
    });
  } catch (error) {
    deps.log.warn({ err: error }, 'voice note not transcribed');
    throw new Refusal('I could not listen to that voice note just now. Please try again, or type it.');
  }
  if (!text)
    throw new Refusal('I could not make out any words in that voice note. Please try again, or type it.');
  return text;
}

/** A document or photo, stored as an attachment of the question with the gateway's checks. */
async function attach(deps: HandlerDeps, media: InboundMedia, tenant: Question['tenant']): Promise<string> {
  if (!deps.attachments) throw new Refusal('I cannot read files here yet. Please type your question.');
  const file = await download(deps, media, deps.config.attachmentMaxBytes, 'file');
  try {
    const row = await deps.attachments.upload({
      bytes: file.bytes,
      filename: media.filename ?? (media.mimeType.startsWith('image/') ? 'photo' : 'document'),
      declaredType: media.mimeType.split(';')[0]?.trim() ?? media.mimeType,
      owner: { entityId: tenant.entityId, orgId: tenant.orgId },
      conversationId: tenant.conversationId,
    });
    return row.id;
  } catch (error) {
    if (error instanceof UnsupportedTypeError || error instanceof ArchiveRefusedError)
      throw new Refusal(`I cannot read that file: ${error.message}. ${CANNOT_READ}`);
    throw error;
  }
}

async function download(deps: HandlerDeps, media: InboundMedia, maxBytes: number, what: string) {
  try {
    return await deps.media.downloadMedia(media.id, maxBytes);
  } catch (error) {
    if (error instanceof WhatsAppMediaTooLargeError)
      throw new Refusal(
        `That ${what} is too large: I can take up to ${Math.floor(maxBytes / (1024 * 1024))} MB.`,
      );
    throw error;
  }
}
