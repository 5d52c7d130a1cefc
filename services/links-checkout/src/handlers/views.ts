import { checkoutPageUrl, type ProjectDisplay } from '@mmp/protocol';
import { effectiveStatus } from '../domain/link-rules.js';
import { canRetry } from '../domain/session-state.js';
import { operatorsFor } from '../domain/operators.js';
import type { LinkDoc } from '../store/links.js';
import type { SessionDoc } from '../store/sessions.js';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Who is asking for the money, as payers see it. */
export type Merchant = { name: string; logo: string | null };

export function merchantOf(project: ProjectDisplay): Merchant {
  return { name: project.displayName || project.name, logo: project.logoUrl };
}

export function linkUrl(publicUrl: string, shortCode: string): string {
  return `${publicUrl}/pay/${shortCode}`;
}

/** The merchant's view: every field of the specification's PaymentLink. */
export function toPaymentLink(link: LinkDoc, publicUrl: string, now: Date) {
  return {
    id: link._id,
    shortCode: link.shortCode,
    url: linkUrl(publicUrl, link.shortCode),
    name: link.name,
    description: link.description,
    amount: link.amount,
    currency: link.currency,
    minAmount: link.minAmount,
    maxAmount: link.maxAmount,
    status: effectiveStatus(link, now),
    collectPhone: link.collectPhone,
    collectEmail: link.collectEmail,
    collectName: link.collectName,
    customFields: link.customFields,
    maxUses: link.maxUses,
    usageCount: link.usageCount,
    expiresAt: iso(link.expiresAt),
    livemode: link.livemode,
    createdAt: link.createdAt.toISOString(),
    updatedAt: link.updatedAt.toISOString(),
  };
}

/** The public view adds who is asking for the money. */
export function toPublicPaymentLink(link: LinkDoc, publicUrl: string, now: Date, merchant: Merchant) {
  return {
    ...toPaymentLink(link, publicUrl, now),
    merchantName: merchant.name,
    merchantLogo: merchant.logo,
    projectId: link.projectId,
  };
}

export function toCheckoutSession(session: SessionDoc, publicUrl: string, merchant: Merchant) {
  return {
    id: session._id,
    url: checkoutPageUrl(publicUrl, session._id),
    amount: session.amount,
    currency: session.currency,
    description: session.description ?? '',
    status: session.status,
    expiresAt: session.expiresAt.toISOString(),
    createdAt: session.createdAt.toISOString(),
    merchantName: merchant.name,
    merchantLogo: merchant.logo,
    successUrl: session.successUrl,
    cancelUrl: session.cancelUrl,
    paymentMethod: session.paymentMethod,
    paymentId: session.paymentId,
    customer: { email: session.customer.email, phone: session.customer.phone },
    livemode: session.livemode,
    operators: operatorsFor(session.currency),
    failureCode: session.failureCode,
    failureReason: session.failureReason,
    retryable: canRetry(session.status, session.origin),
  };
}

export function toSessionStatus(session: SessionDoc) {
  const redirectUrl =
    session.status === 'success'
      ? session.successUrl
      : session.status === 'cancelled'
        ? session.cancelUrl
        : null;
  return {
    id: session._id,
    status: session.status,
    paymentId: session.paymentId,
    paymentStatus: session.paymentStatus,
    failureCode: session.failureCode,
    failureReason: session.failureReason,
    redirectUrl,
    expiresAt: session.expiresAt.toISOString(),
  };
}
