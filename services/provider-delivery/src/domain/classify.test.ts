import { describe, expect, it } from 'vitest';
import { backoffMs, judgeOrderExchange, judgeProbeExchange, type Exchange } from './classify.js';

const expected = { type: 'payment.ack' as const, key: 'pexec_1' };
const answer = (httpStatus: number, body: unknown): Exchange => ({
  kind: 'response',
  httpStatus,
  body: typeof body === 'string' ? body : JSON.stringify(body),
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
    ['timeout', { kind: 'timeout', latencyMs: 10 } as Exchange, 'TIMEOUT', true],
    [
      'unreachable',
      { kind: 'unreachable', reason: 'connection failed (ECONNREFUSED)', latencyMs: 1 } as Exchange,
      'UNREACHABLE',
      false,
    ],
    ['unparseable', answer(200, 'OK'), 'BAD_ACK', false],
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
  ])('%s', (_name, exchange, classification, transient) => {
    const verdict = judgeOrderExchange(exchange, expected);
    expect(verdict).toMatchObject({ classification, transient, ack: null });
    expect(verdict.reason).toEqual(expect.any(String));
  });
});

describe('judgeProbeExchange', () => {
  it('is ok only with a health.ack echoing the nonce', () => {
    expect(judgeProbeExchange(answer(200, { type: 'health.ack', nonce: 'ab' }), 'ab')).toEqual({
      ok: true,
      reason: null,
    });
    expect(judgeProbeExchange(answer(200, { type: 'health.ack', nonce: 'cd' }), 'ab')).toEqual({
      ok: false,
      reason: 'the health.ack echoes a different nonce',
    });
    expect(judgeProbeExchange(answer(200, { type: 'health.ack' }), 'ab')).toEqual({
      ok: false,
      reason: 'the health.ack carries no nonce',
    });
    expect(judgeProbeExchange(answer(204, ''), 'ab')).toEqual({ ok: false, reason: 'HTTP 204' });
    expect(judgeProbeExchange({ kind: 'timeout', latencyMs: 5000 }, 'ab').reason).toMatch(/timeout/);
  });

  it("points a refused signature (401, 403) at the rail's secret, for a probe and an order", () => {
    const hint = "the endpoint refused the signed call; does it verify with this rail's whsec_ secret?";
    expect(judgeProbeExchange(answer(401, { error: 'signature mismatch' }), 'ab')).toEqual({
      ok: false,
      reason: `HTTP 401: ${hint}`,
    });
    expect(judgeOrderExchange(answer(403, ''), { type: 'payment.ack', key: 'k' })).toMatchObject({
      classification: 'HTTP_ERROR',
      reason: `HTTP 403: ${hint}`,
      transient: false,
    });
  });
});

describe('backoffMs', () => {
  it('doubles from the base, with bounded jitter', () => {
    expect(backoffMs(1000, 1, () => 0)).toBe(1000);
    expect(backoffMs(1000, 2, () => 0)).toBe(2000);
    expect(backoffMs(1000, 2, () => 1)).toBe(2400);
  });
});
