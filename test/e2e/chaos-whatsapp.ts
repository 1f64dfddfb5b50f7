import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChatRequest, contentText } from '@munim/scripted-llm';
import {
  buttonReplyDelivery,
  type GraphFixture,
  type GraphSentMessage,
  signWebhook,
  textDelivery,
  type WebhookDelivery,
} from '@munim/testkit';

/**
 * The chaos test's WhatsApp traffic: people who write from their phones to either messaging
 * instance as Meta does (signed deliveries, sent again to the other instance when one does not
 * answer 200), some deliveries posted to both instances at once, and what the Graph fixture was
 * sent back. Each flow is one phone, so every message a phone is sent answers one of its own.
 */

const WEBHOOK_PATH = '/v1/channels/whatsapp/webhook';
/** A question's answer takes this long at the model: the messaging kill lands on questions in flight. */
const ANSWER_DELAY_MS = 1_500;
/** A person reads a card before tapping it (the card is recorded once it is sent; a tap within ms may find none). */
const TAP_AFTER_MS = 1_000;
const QUESTION = 'whatsapp question wa-';
/** Asked in so many words (not a change proposed from something read): a Confirm button, not a typed word. */
const PROPOSAL = 'please create customer wa-';

/** One inbound message: its delivery, where it was posted, and whether an instance took it. */
export interface WaMessage {
  id: string;
  what: 'question' | 'proposal' | 'tap' | 'late retry';
  /** Posted to both instances at once (or again after its answer: a late retry). */
  duplicate: boolean;
  /** An instance answered 200 (Meta stops sending it). */
  accepted: boolean;
  /** Every POST's outcome, in order (`200@1`, `refused@0`, ...). */
  posts: string[];
  /** From its first POST to the message the phone was sent for it. */
  answeredInMs?: number;
}

/** A phone's flow: a question, or a customer proposed and confirmed by the card's Confirm button. */
export interface WaFlow {
  kind: 'whatsapp question' | 'whatsapp write';
  phone: string;
  tag: string;
  /** The customer a write creates. */
  name?: string;
  messages: WaMessage[];
  card?: GraphSentMessage | undefined;
  answer?: GraphSentMessage | undefined;
  problems: string[];
}

/** What the system was sent back, per message text. */
export const textOf = (m: GraphSentMessage | undefined): string =>
  String(
    (m?.body.text as { body?: string } | undefined)?.body ??
      (m?.body.interactive as { body?: { text?: string } } | undefined)?.body?.text ??
      '',
  );

const buttonsOf = (m: GraphSentMessage | undefined) =>
  (
    (m?.body.interactive as { action?: { buttons?: { reply: { id: string; title: string } }[] } } | undefined)
      ?.action?.buttons ?? []
  ).map((b) => b.reply);

const userTexts = (req: ChatRequest) =>
  req.messages.filter((m) => m.role === 'user').map((m) => contentText(m.content));

/** The model's answers to WhatsApp questions and proposals: a function of the request, as a redone one asks again. */
export function scriptWhatsApp(llm: { script(s: unknown): void } | undefined, writeTool: string): void {
  llm?.script({
    name: 'whatsapp question',
    match: (req: ChatRequest) => userTexts(req).some((t) => t.includes(QUESTION)),
    repeat: true,
    turns: [
      (req: ChatRequest) => {
        const tag = userTexts(req)
          .map((t) => new RegExp(`${QUESTION}([a-z0-9]+)`).exec(t)?.[1])
          .find(Boolean);
        return { content: `Answer for wa-${tag}.`, delayMs: ANSWER_DELAY_MS };
      },
    ],
  });
  llm?.script({
    name: 'whatsapp write',
    // The confirmation's turn is asked after a tap ("Confirm"): the proposal is an earlier user message.
    match: (req: ChatRequest) => userTexts(req).some((t) => t.includes(PROPOSAL)),
    repeat: true,
    turns: [
      (req: ChatRequest) => {
        const name = userTexts(req)
          .map((t) => new RegExp(`${PROPOSAL}([a-z0-9]+)`).exec(t)?.[1])
          .find(Boolean);
        return req.messages.some((m) => m.role === 'tool')
          ? { content: `Created customer wa-${name}.` }
          : { toolCalls: [{ name: writeTool, arguments: { Name: `wa-${name}` } }] };
      },
    ],
  });
}

/** A client of the messaging instances that posts as Meta does, and waits for what a phone is sent. */
export class WhatsAppTraffic {
  readonly #graph: GraphFixture;
  readonly #urls: string[];
  readonly #secret: string;
  readonly #deadlineMs: number;
  readonly #phones: string[];
  /** Messages posted and not yet answered. */
  inFlight = 0;
  readonly #flows = { 'whatsapp question': 0, 'whatsapp write': 0 };

  constructor(opts: {
    graph: GraphFixture;
    urls: string[];
    appSecret: string;
    deadlineMs: number;
    phones: string[];
  }) {
    this.#graph = opts.graph;
    this.#urls = opts.urls;
    this.#secret = opts.appSecret;
    this.#deadlineMs = opts.deadlineMs;
    this.#phones = [...opts.phones];
  }

  /**
   * Runs one phone's flow. Flows of a kind take turns: one posted to the first instance, one to both
   * at once, one to the second, one to both (a write's tap goes twice when its proposal did not).
   */
  async run(kind: WaFlow['kind']): Promise<WaFlow> {
    const phone = this.#phones.pop();
    if (!phone) throw new Error('no registered phone left for a WhatsApp flow');
    const tag = randomBytes(5).toString('hex');
    const flow: WaFlow = { kind, phone, tag, messages: [], problems: [] };
    const deadline = Date.now() + this.#deadlineMs;
    const turn = ++this.#flows[kind];
    const twice = turn % 2 === 0;
    const first = Math.floor(turn / 2) % 2;
    if (kind === 'whatsapp question') {
      flow.answer = await this.#say(
        flow,
        'question',
        textDelivery({ from: phone, text: `${QUESTION}${tag}` }),
        {
          first,
          twice,
          deadline,
        },
      );
      return flow;
    }
    flow.name = `wa-${tag}`;
    const twiceProposal = twice;
    flow.card = await this.#say(flow, 'proposal', textDelivery({ from: phone, text: `${PROPOSAL}${tag}` }), {
      first,
      twice: twiceProposal,
      deadline,
    });
    const confirm = buttonsOf(flow.card).find((b) => b.title === 'Confirm');
    if (!flow.card || !confirm) return flow;
    await sleep(TAP_AFTER_MS);
    const tap = buttonReplyDelivery({
      from: phone,
      buttonId: confirm.id,
      title: confirm.title,
      contextId: flow.card.id,
    });
    flow.answer = await this.#say(flow, 'tap', tap, { first: 1 - first, twice: !twiceProposal, deadline });
    if (!twiceProposal) {
      // Meta sends a delivery again when it did not see the 200 in time: answered already, nothing happens.
      const late = await this.#post(JSON.stringify(tap), first, deadline);
      flow.messages.push({
        ...late,
        id: String(tap.entry[0]?.changes[0]?.value.messages?.[0]?.id),
        what: 'late retry',
        duplicate: true,
      });
    }
    return flow;
  }

  /** Posts a message (to both instances when `twice`) and waits for the one thing the phone is sent for it. */
  async #say(
    flow: WaFlow,
    what: WaMessage['what'],
    delivery: WebhookDelivery,
    opts: { first: number; twice: boolean; deadline: number },
  ): Promise<GraphSentMessage | undefined> {
    const id = String(delivery.entry[0]?.changes[0]?.value.messages?.[0]?.id);
    const before = this.#graph.sent.filter((m) => m.to === flow.phone).length;
    const body = JSON.stringify(delivery);
    const started = Date.now();
    this.inFlight += 1;
    try {
      const posts = await Promise.all(
        (opts.twice ? [opts.first, 1 - opts.first] : [opts.first]).map((g) =>
          this.#post(body, g, opts.deadline),
        ),
      );
      const message: WaMessage = {
        id,
        what,
        duplicate: opts.twice,
        accepted: posts.some((p) => p.accepted),
        posts: posts.flatMap((p) => p.posts),
      };
      flow.messages.push(message);
      if (!message.accepted) {
        flow.problems.push(`${what} ${id}: no instance took it (${message.posts.join(', ')})`);
        return undefined;
      }
      const all = await this.#graph.waitForMessages(before + 1, {
        to: flow.phone,
        timeoutMs: Math.max(1, opts.deadline - Date.now()),
      });
      message.answeredInMs = Date.now() - started;
      return all[before];
    } catch (error) {
      flow.problems.push(`${what} ${id}: ${(error as Error).message}`);
      return undefined;
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Posts a signed delivery until an instance answers 200, trying the other one after a refusal or a 5xx. */
  async #post(
    body: string,
    first: number,
    deadline: number,
  ): Promise<Omit<WaMessage, 'id' | 'what' | 'duplicate'>> {
    const posts: string[] = [];
    const headers = {
      'content-type': 'application/json',
      'x-hub-signature-256': signWebhook(body, this.#secret),
    };
    for (let g = first; Date.now() < deadline; g = 1 - g) {
      try {
        const res = await fetch(`${this.#urls[g]}${WEBHOOK_PATH}`, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(10_000),
        });
        await res.text();
        posts.push(`${res.status}@${g}`);
        if (res.status === 200) return { accepted: true, posts };
        if (res.status < 500) return { accepted: false, posts };
      } catch (error) {
        const refused = (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
        posts.push(`${refused ? 'refused' : 'no answer'}@${g}`);
      }
      await sleep(250);
    }
    return { accepted: false, posts };
  }
}

/** What the WhatsApp flows came to, and every way they went wrong. */
export function whatsAppFindings(
  flows: WaFlow[],
  graph: GraphFixture,
  books: {
    calls(): { tool: string; args: Record<string, unknown> }[];
    store: { contacts: { Name?: string }[] };
  },
  writeTool: string,
): {
  problems: string[];
  answered: number;
  created: number;
  otherwise: string[];
  duplicates: number;
  slowestMs: number;
} {
  const problems = flows.flatMap((f) => f.problems.map((p) => `${f.kind} from ${f.phone}: ${p}`));
  let answered = 0;
  let created = 0;
  /** What the phones were told instead of the answer or the new customer. */
  const otherwise: string[] = [];
  for (const flow of flows) {
    const sent = graph.sent.filter((m) => m.to === flow.phone);
    // Each distinct message an instance took gets exactly one message back; a duplicate none more.
    const taken = new Set(flow.messages.filter((m) => m.accepted).map((m) => m.id));
    if (sent.length !== taken.size)
      problems.push(
        `${flow.kind} from ${flow.phone}: ${taken.size} messages taken, ${sent.length} sent back: ` +
          `${flow.messages.map((m) => `${m.what}${m.duplicate ? ' (twice)' : ''} [${m.posts.join(' ')}]`).join('; ')} → ` +
          sent.map((m) => JSON.stringify(textOf(m))).join(', '),
      );
    if (flow.kind === 'whatsapp question') {
      if (textOf(flow.answer) === `Answer for wa-${flow.tag}.`) answered += 1;
      else otherwise.push(`question: ${textOf(flow.answer).slice(0, 160)}`);
      continue;
    }
    const calls = books.calls().filter((c) => c.tool === writeTool && c.args.Name === flow.name);
    const stored = books.store.contacts.filter((c) => c.Name === flow.name);
    if (calls.length > 1 || stored.length > 1)
      problems.push(
        `${flow.name}: confirmed on WhatsApp, sent ${calls.length} times, stored ${stored.length} times`,
      );
    if (!flow.messages.some((m) => m.what === 'tap') && calls.length > 0)
      problems.push(`${flow.name}: ran without a tap on Confirm`);
    // The card it sent is one it knows: its own button is never refused as another card's.
    if (/does not belong|older message/.test(textOf(flow.answer)))
      problems.push(`${flow.name}: the tap on its card's Confirm was refused: ${textOf(flow.answer)}`);
    if (textOf(flow.answer) === `Created customer ${flow.name}.`) {
      created += 1;
      if (calls.length !== 1 || stored.length !== 1)
        problems.push(
          `${flow.name}: said created, sent ${calls.length} times, stored ${stored.length} times`,
        );
    } else {
      const told = flow.answer ?? (buttonsOf(flow.card).length > 0 ? undefined : flow.card);
      otherwise.push(`${flow.name} (sent ${calls.length} times): ${textOf(told).slice(0, 160)}`);
    }
  }
  const messages = flows.flatMap((f) => f.messages);
  const duplicates = new Set(messages.filter((m) => m.duplicate && m.accepted).map((m) => m.id)).size;
  const slowestMs = Math.max(0, ...messages.map((m) => m.answeredInMs ?? 0));
  return { problems, answered, created, otherwise, duplicates, slowestMs };
}
