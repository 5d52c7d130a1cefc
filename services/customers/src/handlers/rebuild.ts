import { jetstream } from '@nats-io/jetstream';
import { appError, EVENTS_STREAM, EventEnvelope, eventSubject } from '@mmp/protocol';
import type { Logger, Naming, NatsConnection, Operation } from '@mmp/platform';
import type { CustomerStore } from '../store/customers.js';
import type { PaymentProjector } from './project-payment.js';

/**
 * Rebuilds the projection from the EVENTS stream: wipe, then replay every payment event
 * from the first through an ephemeral ordered consumer. The live consumer may keep
 * running: the projection is a merge that does not care about order or repetition
 * (greatest version per payment, profiles derived from the records), so live and replayed
 * writes converge, and every event the wipe could have erased is in the replayed range.
 * Until the replay ends, lists are incomplete.
 */
export function createRebuildOperation(deps: {
  nc: NatsConnection;
  naming: Naming;
  store: CustomerStore;
  projector: PaymentProjector;
  log: Logger;
}): Operation {
  let running = false;

  async function replay(): Promise<number> {
    const consumer = await jetstream(deps.nc).consumers.get(deps.naming.stream(EVENTS_STREAM), {
      // One subject: nats-server before 2.10 takes no list here.
      filter_subjects: deps.naming.subject(eventSubject('payment.*')),
    });
    if ((await consumer.info()).num_pending === 0) return 0;
    let count = 0;
    const messages = await consumer.consume({ max_messages: 256 });
    try {
      for await (const msg of messages) {
        const envelope = EventEnvelope.safeParse(msg.json());
        if (envelope.success) await deps.projector.apply(envelope.data, { mustRefresh: true });
        else deps.log.error({ seq: msg.seq }, 'skipping malformed event during rebuild');
        count += 1;
        if (msg.info.pending === 0) break;
      }
    } finally {
      await messages.close();
    }
    return count;
  }

  return async (_request, { actor, log }) => {
    if (actor.kind !== 'admin')
      throw appError('insufficient_permissions', 'Only an administrator rebuilds customers.');
    if (running) throw appError('invalid_state', 'A rebuild of the customers projection is already running.');
    running = true;
    const started = Date.now();
    try {
      await deps.store.clear();
      const events = await replay();
      const totals = await deps.store.countAll();
      log.info({ events, ...totals }, 'customers projection rebuilt');
      return { status: 200, body: { events, ...totals, durationMs: Date.now() - started } };
    } finally {
      running = false;
    }
  };
}
