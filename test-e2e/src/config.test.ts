import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, startService, type ServiceDefinition } from '@mmp/platform';
import { createTestSystem } from '@mmp/platform/testing';
import { gatewayService } from '@mmp/gateway';
import { paymentsService } from '@mmp/payments';
import { linksCheckoutService } from '@mmp/links-checkout';
import { customersService } from '@mmp/customers';
import { providerRouterService } from '@mmp/provider-router';
import { providerDeliveryService } from '@mmp/provider-delivery';
import { certificationRunnerService } from '@mmp/certification-runner';
import { sandboxProviderService } from '@mmp/sandbox-provider';

/**
 * Every variable each service reads is validated at start (a bad one is named and nothing
 * connects) and documented in README's configuration table, which a platform team writes
 * its manifests from.
 */

type AnyDefinition = ServiceDefinition<never>;

/** Each service with one variable of its own (or of the kit) set wrong, as an operator might. */
const BAD: { service: string; definition: AnyDefinition; name: string; value: string }[] = [
  { service: 'gateway', definition: gatewayService as never, name: 'PUBLIC_URL', value: 'pay.example.com' },
  {
    service: 'payments',
    definition: paymentsService as never,
    name: 'WEBHOOK_RETRY_SCHEDULE_MS',
    value: 'soon',
  },
  {
    service: 'links-checkout',
    definition: linksCheckoutService as never,
    name: 'SESSION_TTL_SECONDS',
    value: '-5',
  },
  { service: 'customers', definition: customersService as never, name: 'MONGO_URL', value: 'mongo:27017' },
  {
    service: 'provider-router',
    definition: providerRouterService as never,
    name: 'BREAKER_FAILURES',
    value: '0',
  },
  {
    service: 'provider-delivery',
    definition: providerDeliveryService as never,
    name: 'DELIVERY_MAX_ATTEMPTS',
    value: '11',
  },
  {
    service: 'certification-runner',
    definition: certificationRunnerService as never,
    name: 'LOG_LEVEL',
    value: 'loud',
  },
  {
    service: 'sandbox-provider',
    definition: sandboxProviderService as never,
    name: 'GATEWAY_URL',
    value: 'gateway:3000',
  },
];

const system = createTestSystem('config');
afterAll(() => system.cleanup());
const validEnv = { ...system.env, ADMIN_TOKEN: 'admin-token-0123456789abcdef' };

function variablesOf(definition: AnyDefinition): string[] {
  return Object.keys((definition.env as unknown as { shape: Record<string, unknown> }).shape);
}

function documentedVariables(): Set<string> {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const section = readme.split(/^## Configuration$/m)[1]!.split(/^## /m)[0]!;
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!));
  return new Set(names);
}

describe('configuration', () => {
  it.each(BAD)(
    '$service refuses to start with a bad $name, naming it',
    async ({ definition, name, value }) => {
      const attempt = startService(definition, { ...validEnv, [name]: value });
      await expect(attempt).rejects.toBeInstanceOf(ConfigError);
      await expect(attempt).rejects.toThrow(new RegExp(`^\\s+- ${name}( \\(item [\\w.]+\\))?: `, 'm'));
    },
  );

  it('documents every variable of every service in the README table, and no variable nothing reads', () => {
    const documented = documentedVariables();
    const read = new Set(BAD.flatMap(({ definition }) => variablesOf(definition)));
    const undocumented = [...read].filter((name) => !documented.has(name));
    expect(undocumented, 'variables missing from the README table').toEqual([]);
    // Read by `pnpm start` and the CLI rather than by a service.
    const outsideServices = ['OPS_PORT_BASE', 'LOG_FORMAT', 'MMP_URL', 'MMP_PROVIDER_KEY'];
    const stale = [...documented].filter((name) => !read.has(name) && !outsideServices.includes(name));
    expect(stale, 'README rows no service reads').toEqual([]);
  });
});
