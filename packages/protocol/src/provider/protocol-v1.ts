import { z } from 'zod';
import { MajorAmountString } from '../money.js';
import { Network } from '../network.js';
import { E164 } from '../phone.js';

/** Every protocol payload carries the literal string "1" (not the number). */
export const ProtocolVersion = z.literal('1', { error: 'protocol_version must be the string "1"' });

export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'currency must be a 3-letter ISO 4217 code');
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code');
const UnixSeconds = z
  .number()
  .int('timestamp must be an integer of Unix seconds')
  .positive('timestamp must be positive');
const NonEmpty = (name: string) =>
  z.string().min(1, `${name} must be a non-empty string`).max(255, `${name} must be at most 255 characters`);

export const HealthCheck = z.strictObject({
  protocol_version: ProtocolVersion,
  type: z.literal('health.check'),
  nonce: z.string().regex(/^[0-9a-f]{16,128}$/, 'nonce must be a lower-case hex string'),
  timestamp: UnixSeconds,
});
export type HealthCheck = z.infer<typeof HealthCheck>;

/** Exactly one of msisdn or ref: a union of two strict objects makes {msisdn, ref} fail too. */
export const Payee = z.union([z.strictObject({ msisdn: E164 }), z.strictObject({ ref: NonEmpty('ref') })], {
  error: 'payee must be exactly one of {msisdn: <E.164>} or {ref: <string>}',
});
export type Payee = z.infer<typeof Payee>;

const orderFields = {
  protocol_version: ProtocolVersion,
  amount: MajorAmountString,
  currency: CurrencyCode,
  network: Network,
  country: CountryCode,
  payee: Payee,
  transaction_ref: NonEmpty('transaction_ref'),
  timestamp: UnixSeconds,
};

/** An order of one kind: its type, and an idempotency key with the kind's prefix. */
const executeOrder = <T extends string>(type: T, kind: string, keyPrefix: string) =>
  z.strictObject({
    ...orderFields,
    type: z.literal(type),
    idempotency_key: z
      .string()
      .regex(new RegExp(`^${keyPrefix}.+$`), `idempotency_key of a ${kind} order starts with ${keyPrefix}`)
      .max(255),
  });

export const PaymentExecute = executeOrder('payment.execute', 'payment', 'pexec_');
export type PaymentExecute = z.infer<typeof PaymentExecute>;

export const PayoutExecute = executeOrder('payout.execute', 'payout', 'pexo_');
export type PayoutExecute = z.infer<typeof PayoutExecute>;

export const ExecutionOrder = z.discriminatedUnion('type', [PaymentExecute, PayoutExecute]);
export type ExecutionOrder = z.infer<typeof ExecutionOrder>;

/** What the service pushes to a provider; the `X-Service-Event` header equals `type`. */
export const ProviderRequest = z.discriminatedUnion('type', [HealthCheck, PaymentExecute, PayoutExecute]);
export type ProviderRequest = z.infer<typeof ProviderRequest>;
export type ProviderRequestType = ProviderRequest['type'];

/**
 * Acks: the specification's table has no protocol_version, its preamble says every
 * payload carries one, so it is accepted but not required. Unknown fields are refused
 * like everywhere in the protocol: a provider learns of a typo at certification.
 */
export const HealthAck = z.strictObject({
  protocol_version: ProtocolVersion.optional(),
  type: z.literal('health.ack'),
  nonce: z.string().min(1),
});
export type HealthAck = z.infer<typeof HealthAck>;

export const AckStatus = z.enum(['ACCEPTED', 'REJECTED'], { error: 'status must be ACCEPTED or REJECTED' });
export type AckStatus = z.infer<typeof AckStatus>;

const ackFields = {
  protocol_version: ProtocolVersion.optional(),
  idempotency_key: NonEmpty('idempotency_key'),
  status: AckStatus,
  reason: z.string().max(500).optional(),
};

export const PaymentAck = z.strictObject({ ...ackFields, type: z.literal('payment.ack') });
export type PaymentAck = z.infer<typeof PaymentAck>;
export const PayoutAck = z.strictObject({ ...ackFields, type: z.literal('payout.ack') });
export type PayoutAck = z.infer<typeof PayoutAck>;

export const OrderAck = z.discriminatedUnion('type', [PaymentAck, PayoutAck]);
export type OrderAck = z.infer<typeof OrderAck>;
export const ProviderAck = z.discriminatedUnion('type', [HealthAck, PaymentAck, PayoutAck]);
export type ProviderAck = z.infer<typeof ProviderAck>;

/** The ack type that answers a request type. */
export function ackTypeFor(type: ProviderRequestType): ProviderAck['type'] {
  return type === 'health.check' ? 'health.ack' : type === 'payment.execute' ? 'payment.ack' : 'payout.ack';
}
