import { expect } from 'vitest';
import { freePort } from '@mmp/platform/testing';
import { api } from './http.js';
import type { RunningSystem } from './system.js';

/** A new provider, made by the admin, with `portal`: calls as the provider (its API key). */
export async function newProvider(system: RunningSystem, name: string) {
  const provider = await system.admin<{ id: string; apiKey: string; signingSecret: string }>(
    'POST',
    '/v1/admin/providers',
    { name },
  );
  return { ...provider, portal: api(system.baseUrl, provider.apiKey) };
}

/**
 * A webhook rail of the provider `portal` calls as (a sandbox one over http unless told),
 * pointed at a free loopback port on which nothing listens yet: the test starts the
 * provider's adapter there.
 */
export async function webhookRailOnFreePort(
  portal: ReturnType<typeof api>,
  coverage: { networks: string[]; countries: string[]; currencies: string[]; supportsPayout?: boolean },
  {
    environment = 'sandbox',
    scheme = 'http',
  }: { environment?: 'sandbox' | 'live'; scheme?: 'http' | 'https' } = {},
) {
  const port = await freePort();
  const rail = await portal<{ id: string; secret: string }>('POST', '/v1/provider/rails', {
    transport: 'webhook',
    endpoint: `${scheme}://127.0.0.1:${port}/`,
    environment,
    ...coverage,
  });
  expect(rail.status).toBe(201);
  return { ...rail.body, port };
}

/**
 * A sandbox rail of the provider `portal` calls as, for MTN MoMo in Cameroon (XAF), tested and
 * active at priority 0: ahead of the sandbox provider's own rail, so it gets the sandbox orders.
 */
export async function activeMtnCameroonRail(
  portal: ReturnType<typeof api>,
  transport: { transport: 'pull' } | { transport: 'webhook'; endpoint: string },
): Promise<void> {
  const rail = await portal<{ id: string }>('POST', '/v1/provider/rails', {
    ...transport,
    networks: ['MTN_MOMO'],
    countries: ['CM'],
    currencies: ['XAF'],
    environment: 'sandbox',
    priority: 0,
  });
  expect(rail.status).toBe(201);
  const tested = await portal('POST', `/v1/provider/rails/${rail.body.id}/test`);
  expect(tested.status).toBe(200);
  expect(tested.body).toMatchObject({ status: 'TESTED' });
  expect((await portal('POST', `/v1/provider/rails/${rail.body.id}/activate`)).body).toMatchObject({
    status: 'ACTIVE',
  });
}
