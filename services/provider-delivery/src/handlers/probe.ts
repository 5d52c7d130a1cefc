import { randomBytes } from 'node:crypto';
import { parseOrThrow, providerEndpointRefusal } from '@mmp/protocol';
import type { Operation } from '@mmp/platform';
import { z } from 'zod';
import { judgeProbeExchange } from '../domain/classify.js';
import type { ProviderHttp } from '../transport/signed-post.js';

const ProbeCommand = z.object({
  railId: z.string().min(1),
  endpoint: z.string().min(1),
  secret: z.string().min(1),
});

/**
 * `probe`: the health check of a rail test. A fresh nonce each time, so an endpoint that
 * replays an old answer fails; never retried, the caller decides what a failure means.
 */
export function probeRail(deps: {
  http: ProviderHttp;
  timeoutMs: number;
  allowHttpLoopback: boolean;
}): Operation {
  return async (request, context) => {
    const { railId, endpoint, secret } = parseOrThrow(ProbeCommand, request.body);
    const unsafe = providerEndpointRefusal(endpoint, deps.allowHttpLoopback);
    if (unsafe) return { status: 200, body: { ok: false, httpStatus: null, reason: unsafe, latencyMs: 0 } };
    const nonce = randomBytes(16).toString('hex');
    const check = {
      protocol_version: '1',
      type: 'health.check',
      nonce,
      timestamp: Math.floor(Date.now() / 1000),
    };
    const exchange = await deps.http.post({
      endpoint,
      secret,
      event: 'health.check',
      body: JSON.stringify(check),
      timeoutMs: deps.timeoutMs,
    });
    const verdict = judgeProbeExchange(exchange, nonce);
    const httpStatus = exchange.kind === 'response' ? exchange.httpStatus : null;
    context.log.info({ railId, ok: verdict.ok, httpStatus, latencyMs: exchange.latencyMs }, 'rail probed');
    return {
      status: 200,
      body: { ok: verdict.ok, httpStatus, reason: verdict.reason, latencyMs: exchange.latencyMs },
    };
  };
}
