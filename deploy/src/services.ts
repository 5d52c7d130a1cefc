import type { ServiceName } from '@mmp/protocol';

/** A secret variable a service reads from its Secret (`<service>-secrets`); values are never committed. */
export type SecretKey = { name: string; required: boolean; about: string };

export type ServiceSpec = {
  name: ServiceName;
  /**
   * `horizontal`: any number of replicas on one database and NATS prefix (every loop claims
   * its work with compare-and-set writes, consumers share one durable consumer), scaled by an
   * HPA. `single`: one replica, replaced rather than rolled.
   */
  scaling: 'horizontal' | 'single';
  /** Replicas the HPA keeps between, in production (staging runs 1 to 2). */
  production?: { min: number; max: number };
  /** Its own ConfigMap (`<service>-config`), on top of the common one. */
  config: Record<string, string>;
  secrets: SecretKey[];
  /**
   * Resident memory measured on the packaged service (deploy/scripts/measure-memory.ts, see
   * docs/operations.md): idle, and the peak under a small load. Requests and limits follow.
   */
  measuredMiB: { idle: number; loaded: number };
};

const NATS_CREDENTIALS: SecretKey[] = [
  {
    name: 'NATS_USER',
    required: true,
    about: 'its NATS user, the service’s own name (deploy/stateful/nats/values-auth.yaml)',
  },
  { name: 'NATS_PASSWORD', required: true, about: 'that user’s password, as in the `nats-users` Secret' },
];
const MONGO: SecretKey = {
  name: 'MONGO_URL',
  required: true,
  about: 'its MongoDB connection string (user with readWrite on its own database)',
};
const SERVICE_SECRET_KEY: SecretKey = {
  name: 'SERVICE_SECRET_KEY',
  required: true,
  about: '32+ random characters; its own value per service (see key rotation)',
};
const ADMIN_TOKEN: SecretKey = {
  name: 'ADMIN_TOKEN',
  required: true,
  about: 'bearer token of /v1/admin (the same value in gateway and sandbox-provider)',
};

/** The public origin of the API and hosted pages, which the Ingress serves. */
export const PUBLIC_HOST = 'pay.example.com';
/** The gateway's in-cluster address, for the sandbox provider (a provider adapter like any other). */
export const GATEWAY_HTTP_PORT = 3000;
/** The certification runner's fault relay, which provider-delivery reaches through the Ingress. */
export const RELAY_HTTP_PORT = 8080;
/** The Ingress path of the relay: its routes are `/relay/<token>`. */
export const RELAY_PATH = '/relay';

/** An HTTP listener in a pod listens on every interface, not the loopback default. */
function listensInPod(variablePrefix: string, port: number): Record<string, string> {
  return { [`${variablePrefix}_HOST`]: '0.0.0.0', [`${variablePrefix}_PORT`]: String(port) };
}

/**
 * A service of the common kind: horizontal, on its own database (`own.secrets` replaces that
 * default), with `own.config` if any; every service also holds its NATS user.
 */
function horizontal(
  name: ServiceName,
  production: ServiceSpec['production'],
  measuredMiB: ServiceSpec['measuredMiB'],
  own: { config?: ServiceSpec['config']; secrets?: SecretKey[] } = {},
): ServiceSpec {
  const { config = {}, secrets = [MONGO] } = own;
  return {
    name,
    scaling: 'horizontal',
    production,
    config,
    secrets: [...secrets, ...NATS_CREDENTIALS],
    measuredMiB,
  };
}

/** Every deployable service, in start order: the sandbox provider registers through the gateway. */
export const SERVICES: readonly ServiceSpec[] = [
  horizontal(
    'payments',
    { min: 2, max: 6 },
    { idle: 106, loaded: 108 },
    // A merchant payment's paymentUrl is its hosted page there.
    { config: { PUBLIC_URL: `https://${PUBLIC_HOST}` }, secrets: [MONGO, SERVICE_SECRET_KEY] },
  ),
  horizontal(
    'links-checkout',
    { min: 2, max: 6 },
    { idle: 104, loaded: 111 },
    { config: { PUBLIC_URL: `https://${PUBLIC_HOST}` } },
  ),
  horizontal('customers', { min: 2, max: 4 }, { idle: 100, loaded: 101 }),
  horizontal(
    'provider-router',
    { min: 2, max: 6 },
    { idle: 100, loaded: 113 },
    { secrets: [MONGO, SERVICE_SECRET_KEY] },
  ),
  horizontal('provider-delivery', { min: 2, max: 6 }, { idle: 102, loaded: 103 }),
  horizontal(
    'certification-runner',
    { min: 2, max: 3 },
    { idle: 98, loaded: 98 },
    {
      config: {
        // The fault relay of cases 9 to 11: delivery calls public https:// addresses only, so
        // it reaches the relay through the Ingress, on the public host (any replica serves it).
        ...listensInPod('CERTIFICATION_RELAY', RELAY_HTTP_PORT),
        CERTIFICATION_RELAY_URL: `https://${PUBLIC_HOST}`,
        GATEWAY_URL: `http://gateway/v1`,
      },
    },
  ),
  horizontal(
    'gateway',
    { min: 3, max: 10 },
    { idle: 127, loaded: 133 },
    {
      config: {
        ...listensInPod('GATEWAY', GATEWAY_HTTP_PORT),
        PUBLIC_URL: `https://${PUBLIC_HOST}`,
        // Behind the Ingress, whose pods have cluster (private) addresses: the client is the
        // nearest address in X-Forwarded-For outside them. A bare `true` is refused: it would let
        // a client pick its own rate-limit bucket.
        TRUST_PROXY: '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16',
      },
      secrets: [
        ADMIN_TOKEN,
        SERVICE_SECRET_KEY,
        MONGO,
        {
          name: 'RATE_LIMIT_REDIS_URL',
          required: false,
          about: 'Redis shared by the replicas for rate limits (else each replica counts alone)',
        },
      ],
    },
  ),
  {
    // Registers itself at its first start and pulls its orders: one replica, so that two
    // never register at once.
    name: 'sandbox-provider',
    scaling: 'single',
    config: { GATEWAY_URL: `http://gateway/v1` },
    secrets: [ADMIN_TOKEN, SERVICE_SECRET_KEY, MONGO, ...NATS_CREDENTIALS],
    measuredMiB: { idle: 118, loaded: 139 },
  },
];

/**
 * Every service's common settings (`mmp-common-config`): what the probes, the drain and the
 * stream depend on is set explicitly rather than left to a default.
 */
export const COMMON_CONFIG: Record<string, string> = {
  // Refuses to start without NATS credentials, and refuses the loopback switch.
  DEPLOYMENT_MODE: 'production',
  // The NATS chart's client Service, installed as release `nats` in the same namespace.
  NATS_URL: 'nats://nats:4222',
  // Three-node JetStream cluster (deploy/stateful/nats); the staging overlay runs one.
  EVENTS_STREAM_REPLICAS: '3',
  LOG_LEVEL: 'info',
  OPS_PORT: '9090',
  OPS_HOST: '0.0.0.0',
  SHUTDOWN_DELAY_MS: '5000',
  SHUTDOWN_TIMEOUT_MS: '20000',
};
