import type { CustomerProfile, PaymentListItem, PaymentSnapshot } from '@mmp/protocol';
import type { DerivedProfile } from './profile.js';

/** A customer as the service keeps it: identity plus the derived profile. */
export type Customer = DerivedProfile & {
  id: string;
  projectId: string;
  livemode: boolean;
  externalId: string;
};

/** The merchant's view (protocol `CustomerProfile`): unknown contact fields are absent. */
export function customerView(customer: Customer): CustomerProfile {
  return {
    id: customer.id,
    projectId: customer.projectId,
    externalId: customer.externalId,
    ...(customer.email ? { email: customer.email } : {}),
    ...(customer.phone ? { phone: customer.phone } : {}),
    ...(customer.name ? { name: customer.name } : {}),
    metadata: customer.metadata,
    totalTransactions: customer.totalTransactions,
    totalSpent: customer.totalSpent,
    lastTransactionAt: customer.lastTransactionAt,
    createdAt: customer.createdAt,
    updatedAt: customer.updatedAt,
  };
}

/** A payment as a list item (protocol `PaymentListItem`). */
export function paymentListItem(payment: PaymentSnapshot): PaymentListItem {
  return {
    id: payment.id,
    token: payment.token,
    amount: payment.amount,
    currency: payment.currency as PaymentListItem['currency'],
    status: payment.status as PaymentListItem['status'],
    paymentMethod: payment.paymentMethod as PaymentListItem['paymentMethod'],
    createdAt: payment.createdAt,
    completedAt: payment.completedAt,
    failureCode: payment.failureCode,
    failureMessage: payment.failureReason,
  };
}
