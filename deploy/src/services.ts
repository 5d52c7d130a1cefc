import type { ServiceName } from '@mmp/protocol';

/** Every deployable service, in start order: the sandbox provider registers through the gateway. */
export const SERVICES: readonly { name: ServiceName }[] = [
  { name: 'payments' },
  { name: 'links-checkout' },
  { name: 'customers' },
  { name: 'provider-router' },
  { name: 'provider-delivery' },
  { name: 'certification-runner' },
  { name: 'gateway' },
  { name: 'sandbox-provider' },
];
