import { expect } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import type { api } from '../support/http.js';
import { payOnHostedPage } from '../support/shopper.js';

export type Call = ReturnType<typeof api>;
export type CreatedPayment = {
  id: string;
  token: string;
  projectId: string;
  amount: number;
  currency: string;
  status: string;
  paymentUrl: string;
  description: string | null;
  livemode: boolean;
  createdAt: string;
  completedAt: string | null;
};

/** The documented simple error form of payment routes, with its code and nothing else. */
export function expectSimpleError(
  response: { status: number; body: unknown; headers: Headers },
  status: number,
  code: string,
): Record<string, unknown> {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const body = response.body as Record<string, unknown>;
  expect(body).toMatchObject({
    statusCode: status,
    code,
    error: expect.any(String),
    message: expect.any(String),
  });
  expect(body.requestId).toEqual(expect.any(String));
  expect(
    Object.keys(body).filter(
      (k) => !['statusCode', 'message', 'error', 'code', 'requestId', 'errors'].includes(k),
    ),
  ).toEqual([]);
  return body;
}

/** The envelope error form of every other route. */
export function expectEnvelopeError(
  response: { status: number; body: unknown },
  status: number,
  code: string,
) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toEqual({
    error: expect.objectContaining({
      code,
      message: expect.any(String),
      type: expect.any(String),
      http_status: status,
      request_id: expect.any(String),
    }),
  });
}

export async function createPayment(
  merchant: Call,
  body: Record<string, unknown> = {},
): Promise<CreatedPayment> {
  const created = await merchant<CreatedPayment>('POST', '/v1/payments', {
    amount: 1000,
    description: 'Order',
    ...body,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** The shopper pays on the hosted flow's API with a sandbox number; resolves at the terminal state. */
export async function payAndSettle(
  baseUrl: string,
  merchant: Call,
  payment: CreatedPayment,
  phone: string,
  expected: 'COMPLETED' | 'FAILED',
) {
  await payOnHostedPage(baseUrl, payment, phone, 'ORANGE_MONEY');
  return eventually(async () => {
    const current = await merchant<{ status: string }>('GET', `/v1/payments/${payment.token}`);
    return current.body.status === expected ? current.body : undefined;
  }, 20_000);
}
