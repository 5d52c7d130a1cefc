export { apiBase } from './base-url.js';
export { verifyServiceCall, type IncomingHeaders, type VerifyResult } from './verify.js';
export { answerHealthCheck, paymentAck } from './acks.js';
export { createServiceCallHandler, type HandlerAnswer, type OrderDecision } from './handler.js';
export {
  signSettlement,
  pushSettlement,
  settlementOf,
  type PushResult,
  type SignedSettlement,
} from './settlement.js';
export { createPullClient, type PullClient, type PullOrdersOptions } from './pull-client.js';
export { callServiceApi, ServiceCallError, type ServiceApiOptions } from './service-api.js';
export type { ExecutionOrder, HealthCheck, OrderAck, PullOrder, SettlementEvent } from '@mmp/protocol';
export { CERTIFICATION_NUMBERS, isCertificationFailureNumber } from '@mmp/protocol';
