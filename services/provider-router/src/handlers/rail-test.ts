import { z } from 'zod';
import { appError, providerEndpointRefusal } from '@mmp/protocol';
import { statusAfterTest, type Rail, type RailTestResult } from '../domain/rail.js';
import { isoNow, type RouterDeps } from './deps.js';

const ProbeReply = z.object({
  ok: z.boolean(),
  httpStatus: z.number().int().nullable().optional(),
  reason: z.string().nullable().optional(),
  latencyMs: z.number().nullable().optional(),
});

/**
 * Webhook rail: provider-delivery sends a signed health.check with a fresh nonce (5 s
 * timeout); only HTTP 200 echoing the nonce passes. A non-HTTPS endpoint fails without a
 * call. Pull rail: the provider itself asks for the test with its API key over the same
 * API it will fetch orders from, so that authenticated call is the proof.
 */
async function runTest(deps: RouterDeps, rail: Rail): Promise<Omit<RailTestResult, 'at'>> {
  if (rail.transport === 'pull') {
    return {
      ok: true,
      reason: 'pull transport: the provider reached the API with its key',
      httpStatus: null,
      latencyMs: null,
    };
  }
  const endpoint = rail.endpoint ?? '';
  const refusal = providerEndpointRefusal(endpoint, deps.config.allowHttpLoopback);
  if (refusal) return { ok: false, reason: refusal, httpStatus: null, latencyMs: null };
  const reply = ProbeReply.safeParse(
    await deps.services.command(
      'provider-delivery',
      'probe',
      { railId: rail._id, endpoint, secret: deps.box.open(rail.sealedSecret ?? '') },
      { timeoutMs: deps.config.probeTimeoutMs },
    ),
  );
  if (!reply.success)
    throw appError('service_unavailable', 'The health probe answered in an unexpected form; try again.');
  const { ok, httpStatus, reason, latencyMs } = reply.data;
  return {
    ok,
    reason: reason ?? (ok ? 'health.ack with the matching nonce' : 'health probe failed'),
    httpStatus: httpStatus ?? null,
    latencyMs: latencyMs ?? null,
  };
}

export async function testRail(deps: RouterDeps, rail: Rail): Promise<Rail> {
  const result = await runTest(deps, rail);
  const lastTest: RailTestResult = { ...result, at: isoNow(deps) };
  const updated = await deps.db.rails.findOneAndUpdate(
    { _id: rail._id, status: rail.status },
    { $set: { status: statusAfterTest(rail.status, result.ok), lastTest, updatedAt: lastTest.at } },
  );
  if (!updated)
    throw appError('invalid_state', 'The rail changed state during its test; read it and test again.');
  return updated;
}
