import type { PaymentSnapshot } from '@mmp/protocol';
import type { DerivedProfile } from './profile.js';

/** A customer as stored: identity plus the derived profile. */
export type Customer = DerivedProfile & {
  id: string;
  projectId: string;
  livemode: boolean;
  externalId: string;
};

/** The merchant's view of a customer (the specification's customer profile fields). */
export function customerView(customer: Customer) {
  return {
    id: customer.id,
    projectId: customer.projectId,
    livemode: customer.livemode,
    externalId: customer.externalId,
    email: customer.email,
    phone: customer.phone,
    name: customer.name,
    metadata: customer.metadata,
    totalTransactions: customer.totalTransactions,
    totalSpent: customer.totalSpent,
    lastTransactionAt: customer.lastTransactionAt,
    createdAt: customer.createdAt,
    updatedAt: customer.updatedAt,
  };
}
export type CustomerView = ReturnType<typeof customerView>;

/** A payment as a list item (the specification's list item fields). */
export function paymentListItem(payment: PaymentSnapshot) {
  return {
    id: payment.id,
    token: payment.token,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    paymentMethod: payment.paymentMethod,
    createdAt: payment.createdAt,
    completedAt: payment.completedAt,
  };
}
