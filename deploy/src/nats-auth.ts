import { SERVICE_NAMES } from '@mmp/protocol';
import { natsPermissions } from '@mmp/platform';

export const NATS_AUTH_VALUES = 'deploy/stateful/nats/values-auth.yaml';
/** The Secret holding each service's NATS password, keyed by service name, for the NATS pods. */
export const NATS_USERS_SECRET = 'nats-users';

const passwordVariable = (service: string) => `NATS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;

/**
 * Values for the NATS chart: one user per service, named after it, whose permissions are
 * generated from the bus contracts (packages/platform/src/nats-permissions.ts). Passwords
 * come from the `nats-users` Secret into the NATS pods' environment; the chart writes
 * `<< … >>` unquoted into nats.conf, where `$VAR` reads that environment.
 */
export function natsAuthValues() {
  return {
    config: {
      merge: {
        authorization: {
          users: SERVICE_NAMES.map((service) => ({
            user: service,
            password: `<< $${passwordVariable(service)} >>`,
            permissions: natsPermissions(service),
          })),
        },
      },
    },
    container: {
      env: Object.fromEntries(
        SERVICE_NAMES.map((service) => [
          passwordVariable(service),
          { valueFrom: { secretKeyRef: { name: NATS_USERS_SECRET, key: service } } },
        ]),
      ),
    },
  };
}
