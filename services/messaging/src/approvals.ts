import type { Bus, RunningConsumer } from '@munim/bus';
import type { Logger } from 'pino';
import { forPhone } from './format/for-phone.ts';
import { masked, type Outbox } from './outbound/outbox.ts';
import { buttonId } from './outbound/replies.ts';
import type { MessagingStore } from './store.ts';

/** A moment in the business's time zone, as a person reads it. */
function when(iso: string, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-IN', { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(
      new Date(iso),
    );
  } catch {
    return new Date(iso).toUTCString();
  }
}

/**
 * Writes waiting for another person, whichever channel asked for them: every approver of the
 * entity with a phone (other than the maker) gets the card, with Approve and Reject buttons bound
 * to the approval. Outside an approver's 24-hour window the configured template goes instead, or
 * nothing (logged). An event seen twice sends each approver one card. When the decision is made,
 * a maker who asked from WhatsApp is told what it came to, once.
 */
export async function watchApprovals(deps: {
  bus: Bus;
  log: Logger;
  store: MessagingStore;
  outbox: Outbox;
  concurrency: number;
}): Promise<RunningConsumer> {
  const { bus, log, store, outbox } = deps;
  return bus.consume(
    'requestEvents',
    async (message) => {
      const event = message.data;
      if (event.type === 'complete' && event.payload.approval) {
        const { approvalId, status } = event.payload.approval;
        if (status === 'awaiting_approval') return;
        const maker = await store.phoneOf(message.conversationId);
        if (!maker || !(await store.claimNotice(`approval:${approvalId}:${status}`, maker.phone))) return;
        const news = forPhone(event.payload.response).texts;
        await outbox.send(
          maker.phone,
          maker.lastInboundAt,
          [`Update on your request: ${news[0] ?? status}`, ...news.slice(1)].map((body) => ({
            kind: 'text' as const,
            body,
          })),
        );
        log.info({ approvalId, status, to: masked(maker.phone) }, 'approval outcome sent to its maker');
        return;
      }
      if (event.type !== 'approval_requested') return;
      const tenant = { entityId: message.entityId, orgId: message.orgId };
      const maker = message.actor?.userId ?? null;
      const people = await store.phonesOf(tenant, event.payload.requiredRoles, maker);
      if (people.length === 0) return;
      const makerName = (await store.nameOf(maker, tenant.orgId)) ?? "the business's owner";
      const timeZone = await store.timeZoneOf(tenant);
      const body =
        `Approval needed: ${event.payload.summary}\n\n` +
        `Asked by ${makerName}. It waits until ${when(event.payload.expiresAt, timeZone)}.`;
      for (const person of people) {
        if (await store.hasCard(person.phone, event.payload.approvalId)) continue;
        const sent = await outbox.send(person.phone, await store.lastInbound(person.phone), [
          {
            kind: 'buttons',
            body: body.length <= 1024 ? body : `${body.slice(0, 1020)}…`,
            buttons: [
              { id: buttonId('approve', event.payload.approvalId), title: 'Approve' },
              { id: buttonId('reject', event.payload.approvalId), title: 'Reject' },
            ],
          },
        ]);
        const sentMessageId = sent.ids[0];
        if (!sentMessageId) continue;
        await store.recordCard({
          sentMessageId,
          phone: person.phone,
          kind: 'approve',
          actionId: event.payload.approvalId,
          entityId: tenant.entityId,
          orgId: tenant.orgId,
          conversationId: message.conversationId,
        });
        log.info({ approvalId: event.payload.approvalId, to: masked(person.phone) }, 'approval card sent');
      }
    },
    {
      durable: 'messaging-approvals',
      concurrency: deps.concurrency,
      // An observer of every request's events: it neither reports their problems nor replays history.
      reportMalformed: false,
      startAt: 'new',
      traced: false,
      onGiveUp: async (message, error) => {
        log.warn({ err: error, requestId: message.requestId }, 'approval card not sent');
      },
    },
  );
}
