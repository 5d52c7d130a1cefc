import { BaseEnv, operation, operations, type ServiceDefinition } from '@mmp/platform';
import { HEADER, PAYMENT_EVENTS, customersApi } from '@mmp/protocol';
import { createPaymentProjector } from './handlers/project-payment.js';
import { createQueryHandlers } from './handlers/queries.js';
import { createRebuild } from './handlers/rebuild.js';
import { createCustomerStore } from './store/customers.js';

export const Env = BaseEnv.extend({});
export type Env = typeof Env;

/** Durable consumer of payment events; the projection's position in the stream. */
export const PROJECTION_CONSUMER = 'customers';

export const customersService: ServiceDefinition<Env> = {
  name: 'customers',
  env: Env,
  async setup(kit) {
    const customers = createCustomerStore(kit.store);
    await customers.ensureIndexes();
    const projector = createPaymentProjector({ store: customers, log: kit.log });
    kit.consume({
      durable: PROJECTION_CONSUMER,
      events: PAYMENT_EVENTS,
      // Most payments name no customer, and the projection has nothing to do with theirs.
      passOver: { [HEADER.hasCustomer]: 'false' },
      handle: (event) => projector.apply(event, { mustRefresh: event.redeliveries > 0 }),
    });
    const rebuild = createRebuild({
      store: customers,
      projector,
      log: kit.log,
      replay: (apply) => kit.replay(PAYMENT_EVENTS, apply),
    });
    kit.serve(
      ...operations(customersApi, createQueryHandlers(customers)),
      operation(customersApi.rebuild, rebuild),
    );
  },
};
