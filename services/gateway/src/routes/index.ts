import type { ForwardedRoute } from './route.js';
import { paymentsRoutes } from './payments.js';
import { transfersRoutes } from './transfers.js';
import { webhookEndpointsRoutes } from './webhook-endpoints.js';
import { paymentLinksRoutes } from './payment-links.js';
import { checkoutRoutes } from './checkout.js';
import { customersRoutes } from './customers.js';
import { providerPortalRoutes } from './provider-portal.js';
import { providerSettlementsRoutes } from './provider-settlements.js';
import { providerOrdersRoutes } from './provider-orders.js';
import { certificationRoutes } from './certification.js';
import { adminRoutes } from './admin.js';

/** Every route the gateway forwards; each owning team keeps its own file. */
export const forwardedRoutes: ForwardedRoute[] = [
  ...paymentsRoutes,
  ...transfersRoutes,
  ...webhookEndpointsRoutes,
  ...paymentLinksRoutes,
  ...checkoutRoutes,
  ...customersRoutes,
  ...providerPortalRoutes,
  ...providerSettlementsRoutes,
  ...providerOrdersRoutes,
  ...certificationRoutes,
  ...adminRoutes,
];
