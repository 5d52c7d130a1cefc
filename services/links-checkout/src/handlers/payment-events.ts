import {
  consumeEvents,
  createIdempotentConsumer,
  type EventConsumer,
  type NatsConnection,
  type Naming,
  type ReceivedEvent,
} from '@mmp/platform';
import { PaymentEventData, type PaymentSnapshot } from '@mmp/protocol';
import { MOVES_BY_EVENT } from '../domain/session-state.js';
import type { SessionDoc } from '../store/collections.js';
import type { Deps } from './deps.js';
import { countLinkUse, releaseLinkUse } from './link-uses.js';

const CONSUMER = 'links-checkout';

/** A payment that ends without money moving gives its link's held use back. */
const ENDS_WITHOUT_PAYING = new Set(['payment.failed', 'payment.expired', 'payment.cancelled']);

/** Moves the session of the event's payment, by compare-and-set; replays change nothing. */
export async function applyPaymentEvent(deps: Deps, event: ReceivedEvent): Promise<void> {
  const parsed = PaymentEventData.safeParse(event.data);
  if (parsed.success) await applyPaymentOutcome(deps, event.type, parsed.data.payment);
}

/**
 * What a payment's event of this type means for its session and link use; the recovery
 * loop applies a payment's end through here too when it learns it by asking.
 */
export async function applyPaymentOutcome(deps: Deps, type: string, payment: PaymentSnapshot): Promise<void> {
  const move = MOVES_BY_EVENT[type];
  const sessionId = payment.checkoutSessionId;
  if (!move || !sessionId) return;
  const completed = type === 'payment.completed';
  // Money moved: a completion is kept even from a payment the session no longer tracks.
  const filter = completed ? { _id: sessionId } : { _id: sessionId, paymentId: payment.id };
  const changes: Partial<SessionDoc> = {
    paymentId: payment.id,
    paymentToken: payment.token,
    paymentStatus: payment.status,
    updatedAt: deps.now(),
  };
  if (type === 'payment.failed') {
    changes.failureCode = payment.failureCode ?? 'payment_failed';
    changes.failureReason = payment.failureReason;
  }
  if (payment.paymentMethod !== 'UNKNOWN') changes.paymentMethod = payment.paymentMethod;
  const moved = await deps.db.sessions.findOneAndUpdate(
    { ...filter, status: { $in: move.from } },
    { $set: { ...changes, status: move.to } },
  );
  const session = moved ?? (await deps.db.sessions.findOne({ _id: sessionId }));
  // Whether or not the session moved (a replay, a session the page cancelled first), the
  // payment's end decides its link use; both writes are guarded, so repeating them is safe.
  if (!session?.linkId) return;
  if (completed) await countLinkUse(deps, session.linkId, sessionId);
  else if (ENDS_WITHOUT_PAYING.has(type)) await releaseLinkUse(deps, session.linkId, sessionId);
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
