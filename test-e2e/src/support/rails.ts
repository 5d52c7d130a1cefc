import { expect } from 'vitest';
import type { api } from './http.js';

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
