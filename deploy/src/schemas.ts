import type { z } from 'zod';
import type { ServiceName } from '@mmp/protocol';
import { certificationRunnerService } from '@mmp/certification-runner';
import { customersService } from '@mmp/customers';
import { gatewayService } from '@mmp/gateway';
import { linksCheckoutService } from '@mmp/links-checkout';
import { paymentsService } from '@mmp/payments';
import { providerDeliveryService } from '@mmp/provider-delivery';
import { providerRouterService } from '@mmp/provider-router';
import { sandboxProviderService } from '@mmp/sandbox-provider';

type EnvSchema = z.ZodObject<Record<string, z.ZodType>>;

/** Each service's own config schema (its `Env`), where the manifests' variables come from. */
export const ENV_SCHEMAS: Record<ServiceName, EnvSchema> = Object.fromEntries(
  [
    certificationRunnerService,
    customersService,
    gatewayService,
    linksCheckoutService,
    paymentsService,
    providerDeliveryService,
    providerRouterService,
    sandboxProviderService,
  ].map((definition) => [definition.name, definition.env as unknown as EnvSchema]),
) as Record<ServiceName, EnvSchema>;

export type EnvVariable = { name: string; optional: boolean; default?: unknown };

/** The variables a schema reads, and whether each may be left unset (it has a default or is optional). */
export function variablesOf(schema: EnvSchema): EnvVariable[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const unset = field.safeParse(undefined);
    return unset.success ? { name, optional: true, default: unset.data } : { name, optional: false };
  });
}
