import type { NatsConnection } from '@nats-io/transport-node';
import type { ServiceName } from '@mmp/protocol';
import { createLogger } from '../logger.js';
import type { Naming } from '../nats.js';
import {
  createBusClient,
  serveOperations,
  type BusClient,
  type ServedOperation,
  type ServedOperations,
} from '../rpc.js';

/**
 * A bus client for a test that calls services directly, as `caller` would (the gateway
 * unless told): contracts admit only their listed callers.
 */
export function createTestBus(
  nc: NatsConnection,
  naming: Naming,
  caller: ServiceName = 'gateway',
): BusClient {
  return createBusClient({
    nc,
    naming,
    caller,
    defaultTimeoutMs: 5000,
    log: createLogger({ service: 'test', level: 'silent' }),
  });
}

/**
 * A stand-in answering for `service`, by contract, as the real one would (the peers a test
 * does not start): `stop()` makes it absent again. `options` are the kit's own for a test
 * of serving itself: where the log goes, and the outcomes kept of keyed operations.
 */
export function serveStandIn(
  nc: NatsConnection,
  naming: Naming,
  service: ServiceName,
  operations: ServedOperation[],
  options: Pick<Parameters<typeof serveOperations>[0], 'log' | 'outcomes'> = {
    log: createLogger({ service: `${service}-stand-in`, level: 'silent' }),
  },
): Promise<ServedOperations> {
  return serveOperations({ nc, naming, service, version: '0.0.1', operations, ...options });
}
