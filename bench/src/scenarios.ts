import { createHmac, randomBytes } from 'node:crypto';
import type { Scenario } from './load.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A short id for this run, so references and idempotency keys never collide across runs. */
export const runId = randomBytes(4).toString('hex');

export function baselineScenario(url: string, when: 'before' | 'after'): Scenario {
  return {
    name: `baseline (${when}): bare Fastify GET /`,
    measures: 'the ceiling of one Node HTTP server on this machine',
    url,
    nextRequest: () => ({ method: 'GET', path: '/' }),
  };
}

export function paymentBody(label: string, sequence: number): string {
  return JSON.stringify({
    amount: 5000,
    currency: 'XAF',
    description: 'Bench order',
    reference: `bench-${runId}-${label}-${sequence}`,
  });
}

/**
 * Each scenario made has references of its own: one bench run may create payments in the
 * same project more than once (`bench:scale` at every size), and a reference the project
 * already holds is refused (409), which would be measured as failed creates.
 */
export function createPaymentScenario(baseUrl: string, secretKey: string): Scenario {
  const label = `create-${randomBytes(4).toString('hex')}`;
  let sequence = 0;
  return {
    name: 'payment create: POST /v1/payments',
    measures:
      'auth + validation + NATS request to payments + store insert + outbox event, unique reference each',
    url: baseUrl,
    nextRequest: () => ({
      method: 'POST',
      path: '/v1/payments',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${secretKey}` },
      body: paymentBody(label, ++sequence),
    }),
  };
}

export function retrievePaymentScenario(baseUrl: string, secretKey: string, tokens: string[]): Scenario {
  let sequence = 0;
  return {
    name: 'payment retrieve: GET /v1/payments/:token',
    measures: `auth + NATS request to payments + store read, round-robin over ${tokens.length} existing payments`,
    url: baseUrl,
    nextRequest: () => ({
      method: 'GET',
      path: `/v1/payments/${tokens[sequence++ % tokens.length]}`,
      headers: { authorization: `Bearer ${secretKey}` },
    }),
  };
}

/** A protocol-v1 SettlementEvent that matches no order: stored as unmatched, answered 200. */
export function settlementBody(sequence: number): string {
  return JSON.stringify({
    protocol_version: '1',
    idempotency_key: `bench-${runId}-${sequence}`,
    transaction_ref: `bench-tx-${runId}-${sequence}`,
    amount: '5000',
    currency: 'XAF',
    status: 'COMPLETED',
    network: 'ORANGE_MONEY',
    settled_at: new Date().toISOString(),
  });
}

/** Signed the way a provider signs: hex HMAC-SHA256 of the exact bytes sent. */
export function signedSettlement(
  signingSecret: string,
  sequence: number,
): { body: string; signature: string } {
  const body = settlementBody(sequence);
  return { body, signature: createHmac('sha256', signingSecret).update(body).digest('hex') };
}

export function settlementScenario(baseUrl: string, providerId: string, signingSecret: string): Scenario {
  let sequence = 0;
  return {
    name: 'settlement ingest: POST /v1/provider/webhooks/:id',
    measures:
      'raw body + HMAC check + strict schema + dedupe + store of an unmatched settlement, unique key each',
    url: baseUrl,
    nextRequest: () => {
      const { body, signature } = signedSettlement(signingSecret, ++sequence);
      return {
        method: 'POST',
        path: `/v1/provider/webhooks/${providerId}`,
        headers: { ...JSON_HEADERS, 'x-service-signature': signature },
        body,
      };
    },
  };
}
