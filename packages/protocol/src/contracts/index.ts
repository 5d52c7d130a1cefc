import type { EventContract, OperationContract } from '../bus/contract.js';
import { certificationApi, certificationEvents } from './certification-runner.js';
import { customersApi } from './customers.js';
import { projectEvents } from './gateway.js';
import { checkoutApi, linksApi, pagesApi } from './links-checkout.js';
import { paymentEvents, paymentsApi, paymentsForCheckout, webhookEndpointsApi } from './payments.js';
import { PING_OPERATIONS } from './ping.js';
import { deliveryEvents, deliveryOperations, pullApi } from './provider-delivery.js';
import {
  providerPortalApi,
  providersAdminApi,
  routerEvents,
  routerForCertification,
  routerQueries,
  settlementsApi,
} from './provider-router.js';
import { sandboxOperations } from './sandbox-provider.js';
import {
  balanceApi,
  payoutEvents,
  payoutsApi,
  refundEvents,
  refundsApi,
  transferEvents,
} from './transfers.js';

export * from './certification-runner.js';
export * from './customers.js';
export * from './gateway.js';
export * from './links-checkout.js';
export * from './payments.js';
export * from './ping.js';
export * from './provider-delivery.js';
export * from './provider-router.js';
export * from './sandbox-provider.js';
export * from './transfers.js';

const groups = <T>(...objects: Record<string, T>[]): T[] =>
  objects.flatMap((object) => Object.values(object));

/** Every operation of the system: what `docs/flows.md` and the NATS permissions are made from. */
export const OPERATION_CONTRACTS: readonly OperationContract[] = groups<OperationContract>(
  PING_OPERATIONS,
  paymentsApi,
  webhookEndpointsApi,
  paymentsForCheckout,
  refundsApi,
  payoutsApi,
  balanceApi,
  linksApi,
  checkoutApi,
  pagesApi,
  customersApi,
  providerPortalApi,
  settlementsApi,
  providersAdminApi,
  routerQueries,
  pullApi,
  deliveryOperations,
  sandboxOperations,
  certificationApi,
  routerForCertification,
);

/** Every event of the system. */
export const EVENT_CONTRACTS: readonly EventContract[] = groups<EventContract>(
  paymentEvents,
  routerEvents,
  deliveryEvents,
  projectEvents,
  certificationEvents,
  transferEvents,
  refundEvents,
  payoutEvents,
);
export * from './flows.js';
