import { describe, expect, it } from 'vitest';
import type { OutboundExchange } from '@mmp/platform';
import { judgeHealthCheck } from './health-check.js';

const answer = (status: number, body: unknown): OutboundExchange => ({
  kind: 'response',
  status,
  headers: {},
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  truncated: false,
  latencyMs: 7,
});

describe('judgeHealthCheck', () => {
  it('passes only a health.ack echoing the nonce sent', () => {
    expect(judgeHealthCheck(answer(200, { type: 'health.ack', nonce: 'ab' }), 'ab')).toEqual({
      ok: true,
      reason: 'health.ack with the matching nonce',
      httpStatus: 200,
      latencyMs: 7,
    });
    expect(judgeHealthCheck(answer(200, { type: 'health.ack', nonce: 'cd' }), 'ab').reason).toBe(
      'the health.ack echoes a different nonce',
    );
    expect(judgeHealthCheck(answer(200, { type: 'health.ack' }), 'ab').reason).toBe(
      'the health.ack carries no nonce',
    );
    expect(judgeHealthCheck(answer(200, { type: 'health.ack', nonce: 'ab', extra: 1 }), 'ab').reason).toBe(
      'the health.ack has unknown or invalid fields',
    );
    expect(judgeHealthCheck(answer(204, ''), 'ab')).toMatchObject({ ok: false, reason: 'HTTP 204' });
  });

  it("points a refused signature (401, 403) at the rail's secret", () => {
    expect(judgeHealthCheck(answer(401, { error: 'signature mismatch' }), 'ab').reason).toBe(
      "HTTP 401: the endpoint refused the signed call; does it verify with this rail's whsec_ secret?",
    );
  });

  it('says why no answer came, never with the remote host’s own words', () => {
    expect(judgeHealthCheck({ kind: 'timeout', latencyMs: 5000 }, 'ab')).toMatchObject({
      ok: false,
      httpStatus: null,
      reason: 'timeout: the endpoint did not answer in time',
    });
    expect(judgeHealthCheck({ kind: 'failed', reason: 'not https', latencyMs: 0 }, 'ab').reason).toBe(
      'the endpoint must use https://',
    );
    expect(judgeHealthCheck({ kind: 'failed', reason: 'tls error', latencyMs: 4 }, 'ab').reason).toBe(
      'unreachable: tls error',
    );
  });
});
