import { expect } from 'vitest';
import { api } from './http.js';

/** The checkout session a payment's `paymentUrl` opens (`…/checkout/cs_…`). */
export function sessionOf(payment: { paymentUrl: string }): string {
  return new URL(payment.paymentUrl).pathname.split('/').pop()!;
}

/** The operator of a Cameroonian sandbox number: `+23767…` is MTN MoMo, the others Orange Money. */
export function sandboxOperator(phone: string): 'MTN_MOMO' | 'ORANGE_MONEY' {
  return phone.startsWith('+23767') ? 'MTN_MOMO' : 'ORANGE_MONEY';
}

/**
 * The shopper pays on the hosted page's route, as the page does, and the route takes it.
 * The payment's outcome comes later, through the provider; callers wait for what they test.
 */
export async function payOnHostedPage(
  baseUrl: string,
  payment: { paymentUrl: string },
  phone: string,
  paymentMethod: string = sandboxOperator(phone),
) {
  const paid = await api(baseUrl)('POST', `/v1/checkout/sessions/${sessionOf(payment)}/pay`, {
    paymentMethod,
    phone,
  });
  expect(paid.status, JSON.stringify(paid.body)).toBeLessThan(300);
  return paid.body;
}
