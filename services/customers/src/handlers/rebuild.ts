import { appError, type customersApi } from '@mmp/protocol';
import type { Logger, OperationHandler } from '@mmp/platform';
import type { CustomerStore } from '../store/customers.js';
import type { PaymentProjector, ProjectedEvent } from './project-payment.js';

/**
 * Rebuilds the projection from the EVENTS stream: wipe, then replay every payment event
 * from the first. The live consumer may keep running: the projection is a merge that does
 * not care about order or repetition (greatest version per payment, profiles derived from
 * the records), so live and replayed writes converge, and every event the wipe could have
 * erased is in the replayed range. Until the replay ends, lists are incomplete.
 */
export function createRebuild(deps: {
  store: CustomerStore;
  projector: PaymentProjector;
  log: Logger;
  replay: (apply: (event: ProjectedEvent) => Promise<void>) => Promise<number>;
}): OperationHandler<typeof customersApi.rebuild> {
  let running = false;
  return async (_request, { log }) => {
    if (running) throw appError('invalid_state', 'A rebuild of the customers projection is already running.');
    running = true;
    const started = Date.now();
    try {
      await deps.store.clear();
      const events = await deps.replay((event) => deps.projector.apply(event, { mustRefresh: true }));
      const totals = await deps.store.countAll();
      log.info({ events, ...totals }, 'customers projection rebuilt');
      return { status: 200, body: { events, ...totals, durationMs: Date.now() - started } };
    } finally {
      running = false;
    }
  };
}
