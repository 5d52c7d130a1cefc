import { describe, expect, it } from 'vitest';
import type { OutboundExchange } from '@mmp/platform';
import { judgeOrderExchange } from './classify.js';

const expected = { type: 'payment.ack' as const, key: 'pexec_1' };
const answer = (status: number, body: unknown, truncated = false): OutboundExchange => ({
  kind: 'response',
  status,
  headers: {},
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  truncated,
  latencyMs: 5,
});

describe('judgeOrderExchange', () => {
  it('accepts only HTTP 200 with a parseable ack of the right type echoing the key', () => {
    expect(
      judgeOrderExchange(
        answer(200, { type: 'payment.ack', idempotency_key: 'pexec_1', status: 'ACCEPTED' }),
        expected,
      ),
    ).toMatchObject({
      classification: 'ACCEPTED',
      transient: false,
    });
    expect(
      judgeOrderExchange(
        answer(200, {
          type: 'payment.ack',
          idempotency_key: 'pexec_1',
          status: 'REJECTED',
          reason: 'insufficient_balance',
        }),
        expected,
      ),
    ).toMatchObject({
      classification: 'REJECTED',
      reason: 'insufficient_balance',
    });
  });

  it.each([
    [
      '201 is not the documented answer',
      answer(201, { type: 'payment.ack', idempotency_key: 'pexec_1', status: 'ACCEPTED' }),
      'HTTP_ERROR',
      false,
    ],
    ['500', answer(500, ''), 'HTTP_ERROR', false],
    ['400', answer(400, ''), 'HTTP_ERROR', false],
    ['502', answer(502, ''), 'HTTP_ERROR', true],
    ['503', answer(503, ''), 'HTTP_ERROR', true],
    ['504', answer(504, ''), 'HTTP_ERROR', true],
    ['timeout', { kind: 'timeout', latencyMs: 10 }, 'TIMEOUT', true],
    ['unreachable', { kind: 'failed', reason: 'connection refused', latencyMs: 1 }, 'UNREACHABLE', false],
    ['a private address', { kind: 'failed', reason: 'private address', latencyMs: 0 }, 'UNREACHABLE', false],
    ['unparseable', answer(200, 'OK'), 'BAD_ACK', false],
    [
      'an ack cut at the size cap',
      answer(200, { type: 'payment.ack', idempotency_key: 'pexec_1', status: 'ACCEPTED' }, true),
      'BAD_ACK',
      false,
    ],
    ['an array', answer(200, []), 'BAD_ACK', false],
    [
      'wrong type',
      answer(200, { type: 'payout.ack', idempotency_key: 'pexec_1', status: 'ACCEPTED' }),
      'BAD_ACK',
      false,
    ],
    ['missing echo', answer(200, { type: 'payment.ack', status: 'ACCEPTED' }), 'ECHO_MISMATCH', false],
    [
      'different echo',
      answer(200, { type: 'payment.ack', idempotency_key: 'pexec_2', status: 'ACCEPTED' }),
      'ECHO_MISMATCH',
      false,
    ],
    [
      'bad status',
      answer(200, { type: 'payment.ack', idempotency_key: 'pexec_1', status: 'OK' }),
      'BAD_ACK',
      false,
    ],
    [
      'unknown field',
      answer(200, { type: 'payment.ack', idempotency_key: 'pexec_1', status: 'ACCEPTED', paid: true }),
      'BAD_ACK',
      false,
    ],
  ] satisfies [string, OutboundExchange, string, boolean][])(
    '%s',
    (_name, exchange, classification, transient) => {
      const verdict = judgeOrderExchange(exchange, expected);
      expect(verdict).toMatchObject({ classification, transient, ack: null });
      expect(verdict.reason).toEqual(expect.any(String));
    },
  );
});

describe('a refused signature', () => {
  it("is pointed at the rail's secret (401, 403)", () => {
    expect(judgeOrderExchange(answer(403, ''), { type: 'payment.ack', key: 'k' })).toMatchObject({
      classification: 'HTTP_ERROR',
      reason:
        "HTTP 403: the endpoint refused the signed call; does it verify with this rail's whsec_ secret?",
      transient: false,
    });
  });
});

describe('the reasons', () => {
  it('name the refused address rule, and only a coarse class otherwise', () => {
    expect(
      judgeOrderExchange({ kind: 'failed', reason: 'private address', latencyMs: 0 }, expected).reason,
    ).toBe('the endpoint must be a public address');
    expect(judgeOrderExchange({ kind: 'failed', reason: 'tls error', latencyMs: 3 }, expected).reason).toBe(
      'unreachable: tls error',
    );
  });
});
