import { describe, expect, it } from 'vitest';
import { allowedMethodsOf } from './allowed-methods.js';

const allowed = allowedMethodsOf([
  { method: 'GET', url: '/v1/payments' },
  { method: 'HEAD', url: '/v1/payments' },
  { method: 'POST', url: '/v1/payments' },
  { method: 'GET', url: '/v1/payments/:token' },
  { method: 'POST', url: '/v1/payments/:token/refunds' },
  { method: 'GET', url: '/docs/*' },
  { method: 'GET', url: '/v1/a.b' },
]);

describe('allowedMethodsOf', () => {
  it('lists every method of the routes whose pattern takes the path, sorted', () => {
    expect(allowed('/v1/payments')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowed('/v1/payments/')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowed('/v1/payments/pay_123')).toEqual(['GET']);
    expect(allowed('/v1/payments/pay_123/refunds')).toEqual(['POST']);
    expect(allowed('/docs/static/swagger-ui.css')).toEqual(['GET']);
  });

  it('lists none for a path no route takes, so the answer stays a 404', () => {
    expect(allowed('/v1/nothing')).toEqual([]);
    expect(allowed('/v1/payments/pay_123/refunds/rf_1/extra')).toEqual([]);
    // A parameter is one segment, and the pattern's dots are dots.
    expect(allowed('/v1/payments/a/b')).toEqual([]);
    expect(allowed('/v1/aXb')).toEqual([]);
  });
});
