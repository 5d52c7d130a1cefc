import { newCheckoutSessionId } from '@mmp/protocol';
import { nextExpiry, type SessionOrigin } from '../domain/session-state.js';
import type { SessionCustomer, SessionDoc } from '../store/collections.js';
import type { Deps } from './deps.js';

export type NewSession = {
  projectId: string;
  livemode: boolean;
  origin: SessionOrigin;
  amount: number;
  currency: string;
  description?: string | null;
  successUrl?: string | null;
  cancelUrl?: string | null;
  customer?: Partial<SessionCustomer> | null;
  customFields?: Record<string, string>;
  metadata?: Record<string, unknown>;
  linkId?: string | null;
  payment?: { id: string; token: string; expiresAt: Date | null };
};

export function buildSession(deps: Deps, input: NewSession): SessionDoc {
  const now = deps.now();
  const hardExpiresAt = input.payment?.expiresAt ?? null;
  return {
    _id: newCheckoutSessionId(),
    projectId: input.projectId,
    livemode: input.livemode,
    origin: input.origin,
    ...(input.payment ? { forPaymentId: input.payment.id } : {}),
    linkId: input.linkId ?? null,
    paymentId: input.payment?.id ?? null,
    paymentToken: input.payment?.token ?? null,
    paymentStatus: input.payment ? 'PENDING' : null,
    amount: input.amount,
    currency: input.currency,
    description: input.description ?? null,
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    customer: {
      email: input.customer?.email ?? null,
      phone: input.customer?.phone ?? null,
      name: input.customer?.name ?? null,
    },
    customFields: input.customFields ?? {},
    metadata: input.metadata ?? {},
    status: 'idle',
    paymentMethod: null,
    phone: null,
    failureCode: null,
    failureReason: null,
    expiresAt: nextExpiry(now, deps.settings.sessionTtlSeconds, hardExpiresAt),
    hardExpiresAt,
    createdAt: now,
    updatedAt: now,
  };
}
