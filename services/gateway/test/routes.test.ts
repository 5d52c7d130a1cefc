import { describe, expect, it } from 'vitest';
import { OPERATION_CONTRACTS, type ActorKind } from '@mmp/protocol';
import { forwardedRoutes } from '../src/routes/index.js';
import { documented, type ForwardedRoute } from '../src/routes/route.js';

/** The actor the guard hands the service for a route. */
function actorKindOf(route: ForwardedRoute): ActorKind {
  switch (route.auth) {
    case 'merchant':
      return 'merchant';
    case 'provider':
      return 'provider';
    case 'admin':
      return route.actAsProject ? 'merchant' : 'admin';
    case 'public':
    case 'signed':
      return 'public';
  }
}

const name = (route: ForwardedRoute) => `${route.method} ${route.url}`;

describe('forwarded routes and their contracts', () => {
  it('send each operation an actor its contract admits', () => {
    const refused = forwardedRoutes.filter((route) => !route.operation.actors.includes(actorKindOf(route)));
    expect(refused.map(name)).toEqual([]);
  });

  it('give every merchant route the scope of its contract', () => {
    const open = forwardedRoutes.filter((route) => route.auth === 'merchant' && !documented(route).scope);
    expect(open.map(name)).toEqual([]);
  });

  it('reach every operation the gateway forwards', () => {
    const routed = new Set(forwardedRoutes.map((route) => route.operation));
    const unreached = OPERATION_CONTRACTS.filter(
      (contract) => contract.responses !== undefined && !routed.has(contract as ForwardedRoute['operation']),
    );
    expect(unreached.map((contract) => contract.subject)).toEqual([]);
  });

  it('give the wait a provider asks for on the pull fetch, and no other route any, on top of the timeout', () => {
    const held = forwardedRoutes.filter((route) => route.heldMs);
    expect(held.map(name)).toEqual(['GET /v1/provider/orders']);
    const heldMs = (query: Record<string, string>) =>
      held[0]!.heldMs!({ params: {}, query, body: undefined, headers: {} });
    expect(heldMs({ wait_ms: '3000' })).toBe(3000);
    expect(heldMs({})).toBe(0);
    // A wait provider-delivery refuses (400) is held for nothing.
    expect(heldMs({ wait_ms: '60000' })).toBe(0);
  });
});
