import { BaseEnv, consumeEvents, type ServiceDefinition } from '@mmp/platform';
import { createPaymentProjector } from './handlers/project-payment.js';
import { createQueryOperations } from './handlers/queries.js';
import { createRebuildOperation } from './handlers/rebuild.js';
import { createCustomerStore } from './store/customers.js';

export const Env = BaseEnv.extend({});
export type Env = typeof Env;

/** Durable consumer of payment events; the projection's position in the stream. */
export const PROJECTION_CONSUMER = 'customers';

export const customersService: ServiceDefinition<Env> = {
  name: 'customers',
  env: Env,
  async start({ nc, naming, store, log }) {
    const customers = createCustomerStore(store);
    await customers.ensureIndexes();
    const projector = createPaymentProjector({ store: customers, log });
    const consumer = await consumeEvents({
      nc,
      naming,
      durable: PROJECTION_CONSUMER,
      types: ['payment.*'],
      log,
      handle: (event) => projector.apply(event, { mustRefresh: event.redeliveries > 0 }),
    });
    return {
      operations: {
        ...createQueryOperations(customers),
        rebuild: createRebuildOperation({ nc, naming, store: customers, projector, log }),
      },
      stop: () => consumer.stop(),
    };
  },
};
