import { connectNats, consumeEvents, createLogger, type ReceivedEvent } from '@mmp/platform';
import type { EventContract, ServiceName } from '@mmp/protocol';
import type { RunningSystem } from './system.js';

export type Observer<Cs extends readonly EventContract[]> = {
  /** Every event received so far, in the order received. */
  received: ReceivedEvent<Cs[number]>[];
  stop(): Promise<void>;
};

/**
 * Records `events` as `service` receives them, on a durable consumer and a NATS connection of
 * the test's own: what the services published, seen without standing in for any of them.
 */
export async function observeEvents<const Cs extends readonly EventContract[]>(
  system: RunningSystem,
  service: ServiceName,
  durable: string,
  events: Cs,
): Promise<Observer<Cs>> {
  const log = createLogger({ service: 'test', level: 'silent' });
  const nc = await connectNats({ url: system.system.env.NATS_URL!, name: durable, log });
  const received: ReceivedEvent<Cs[number]>[] = [];
  const consumer = await consumeEvents({
    nc,
    naming: system.system.naming,
    service,
    durable,
    events,
    log,
    handle: async (event) => void received.push(event),
  });
  return {
    received,
    async stop() {
      await consumer.stop();
      await nc.drain();
    },
  };
}
