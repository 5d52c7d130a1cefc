import {
  consumeEvents,
  createIdempotentConsumer,
  type EventConsumer,
  type NatsConnection,
  type Naming,
  type ReceivedEvent,
} from '@mmp/platform';
import { PaymentEventData } from '@mmp/protocol';
import { MOVES_BY_EVENT } from '../domain/session-state.js';
import type { SessionDoc } from '../store/collections.js';
import type { Deps } from './deps.js';

const CONSUMER = 'links-checkout';

/**
 * A link's usage is recounted from its successful sessions rather than incremented:
 * a redelivered event, or a crash between two writes, can never count a payment twice,
 * and the guard keeps a slower recount from lowering a newer one.
 */
async function recountUsage(deps: Deps, linkId: string): Promise<void> {
  const used = await deps.db.sessions.count({ linkId, status: 'success' });
  await deps.db.links.findOneAndUpdate(
    { _id: linkId, usageCount: { $lt: used } },
    { $set: { usageCount: used } },
  );
}

/** Moves the session of the event's payment, by compare-and-set; replays change nothing. */
export async function applyPaymentEvent(deps: Deps, event: ReceivedEvent): Promise<void> {
  const move = MOVES_BY_EVENT[event.type];
  const parsed = PaymentEventData.safeParse(event.data);
  if (!move || !parsed.success) return;
  const { payment } = parsed.data;
  const sessionId = payment.checkoutSessionId;
  if (!sessionId) return;
  const completed = event.type === 'payment.completed';
  // Money moved: a completion is kept even from a payment the session no longer tracks.
  const filter = completed ? { _id: sessionId } : { _id: sessionId, paymentId: payment.id };
  const changes: Partial<SessionDoc> = {
    paymentId: payment.id,
    paymentToken: payment.token,
    paymentStatus: payment.status,
    updatedAt: deps.now(),
  };
  if (event.type === 'payment.failed') {
    changes.failureCode = payment.failureCode ?? 'payment_failed';
    changes.failureReason = payment.failureReason;
  }
  if (payment.paymentMethod !== 'UNKNOWN') changes.paymentMethod = payment.paymentMethod;
  const moved = await deps.db.sessions.findOneAndUpdate(
    { ...filter, status: { $in: move.from } },
    { $set: { ...changes, status: move.to } },
  );
  const session = moved ?? (await deps.db.sessions.findOne({ _id: sessionId }));
  if (completed && session?.linkId) await recountUsage(deps, session.linkId);
}

export async function startPaymentEventsConsumer(
  deps: Deps,
  nc: NatsConnection,
  naming: Naming,
): Promise<EventConsumer> {
  const once = createIdempotentConsumer(deps.db.processedEvents, CONSUMER);
  return consumeEvents({
    nc,
    naming,
    durable: CONSUMER,
    types: Object.keys(MOVES_BY_EVENT),
    log: deps.log,
    handle: async (event) => {
      await once.once(event.id, () => applyPaymentEvent(deps, event));
    },
  });
}
