import { expect } from 'vitest';
import { expectSimpleError, type Call } from '../payments-api/helpers.js';

export { expectSimpleError, type Call };

export type Link = {
  id: string;
  shortCode: string;
  url: string;
  name: string;
  amount: number | null;
  minAmount: number | null;
  maxAmount: number | null;
  status: string;
  maxUses: number | null;
  usageCount: number;
  expiresAt: string | null;
  updatedAt: string;
};
export type Session = { id: string; url: string; amount: number; status: string; paymentId: string | null };
export type SessionStatus = {
  id: string;
  status: string;
  paymentStatus: string | null;
  failureCode: string | null;
  redirectUrl: string | null;
};

/** Sandbox numbers (ARCHITECTURE): success on Orange Money, and an insufficient balance. */
export const PAYS = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' };
export const NO_FUNDS = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000002' };

export async function createLink(merchant: Call, body: Record<string, unknown>): Promise<Link> {
  const created = await merchant<Link>('POST', '/v1/payment-links', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** A shopper opens a session of the link, as its page does. */
export async function startLink(shopper: Call, link: Link, body: Record<string, unknown> = {}) {
  const started = await shopper<Session>('POST', `/v1/pay/${link.shortCode}/sessions`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return started.body;
}

/** The documented refusal of an unusable link: 400 invalid_request naming the reason in `errors`. */
export function expectLinkRefusal(
  response: { status: number; body: unknown; headers: Headers },
  reason: 'link_inactive' | 'link_expired' | 'link_exhausted',
): Record<string, unknown> {
  const body = expectSimpleError(response, 400, 'invalid_request');
  expect(body.errors).toEqual([{ field: 'link', message: reason }]);
  return body;
}
