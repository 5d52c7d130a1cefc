import type { Notice, ServiceName } from '@mmp/protocol';
import type { Logger } from './logger.js';
import type { Naming, NatsConnection } from './nats.js';

/**
 * Notices on core NATS, not stored: `tell` reaches every running replica of the services
 * that `hear` the notice, the teller's own included. A replica that is disconnected at that
 * moment misses it, so a notice may only hasten what happens anyway (a cache dropped before
 * its time runs out), never be the only way something happens; `missed` runs when the
 * connection comes back, for what may have been told meanwhile.
 */
export type Notices = {
  /** `detail` (an id, say) goes with the notice; it is not secret and not trusted. */
  tell(notice: Notice, detail?: string): void;
  hear(notice: Notice, handle: (detail: string) => void, options?: { missed?: () => void }): void;
};

type Subscribed = { stop(): Promise<void> };

/**
 * Each notice is published when told, in order with everything else the service publishes:
 * told after a write and before the reply to the request that made the write, it reaches
 * the listener that made that request before the reply does.
 */
export function createNotices(options: {
  nc: NatsConnection;
  naming: Naming;
  service: ServiceName;
  log: Logger;
  /** Where a `hear` is started, with the service's other parts. */
  onStart: (start: () => Promise<Subscribed>) => void;
}): Notices {
  const { nc, naming, service, log } = options;
  return {
    tell(notice, detail = '') {
      if (notice.service !== service)
        throw new Error(`${service} cannot tell ${notice.subject}: it is declared for ${notice.service}`);
      try {
        nc.publish(naming.subject(notice.subject), detail);
      } catch (error) {
        // Only once the connection is closed, at stop: the listeners' own bound applies.
        log.warn({ err: error, topic: notice.topic }, 'notice not told');
      }
    },
    hear(notice, handle, { missed } = {}) {
      if (!notice.listeners.includes(service))
        throw new Error(
          `${service} cannot hear ${notice.subject}: it is told to ${notice.listeners.join(', ')}`,
        );
      options.onStart(async () => {
        const subscription = nc.subscribe(naming.subject(notice.subject), {
          callback: (error, msg) => {
            if (error) log.warn({ err: error, topic: notice.topic }, 'notices stopped');
            else handle(msg.string());
          },
        });
        let watching = true;
        if (missed) {
          void (async () => {
            for await (const status of nc.status()) {
              if (!watching) break;
              if (status.type === 'reconnect') missed();
            }
          })();
        }
        return {
          stop: async () => {
            watching = false;
            subscription.unsubscribe();
          },
        };
      });
    },
  };
}
