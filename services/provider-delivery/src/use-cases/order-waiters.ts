/**
 * Long polls of the pull transport, each waiting for an order of its provider. `wake` is
 * called when an order of the provider is stored, here or on another replica (a notice
 * among the replicas), and every waiter is woken when the service starts to stop.
 *
 * A fetch takes a `mark` before it reads the store and hands it to `wait`: an order
 * announced while the read was under way (stored too late for it to see) then ends the
 * wait at once, where a wake with nobody yet waiting would be lost and the order found only
 * when the poll looks again.
 */
export function createOrderWaiters(stopping: AbortSignal) {
  const waiting = new Map<string, Set<() => void>>();
  // Orders announced per provider; one number per provider that pulls.
  const announced = new Map<string, number>();
  stopping.addEventListener(
    'abort',
    () => {
      for (const waiters of [...waiting.values()]) for (const wake of [...waiters]) wake();
    },
    { once: true },
  );
  return {
    /** Where the provider's announcements stand, taken before a fetch reads the store. */
    mark(providerId: string): number {
      return announced.get(providerId) ?? 0;
    },
    /**
     * Resolves after `ms`, once an order of the provider may be there, or once stopping;
     * at once if an order was announced since `mark`.
     */
    wait(providerId: string, ms: number, mark: number): Promise<void> {
      if (stopping.aborted || (announced.get(providerId) ?? 0) !== mark) return Promise.resolve();
      return new Promise((resolve) => {
        const waiters = waiting.get(providerId) ?? new Set<() => void>();
        waiting.set(providerId, waiters);
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          if (waiters.size === 0 && waiting.get(providerId) === waiters) waiting.delete(providerId);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        waiters.add(wake);
      });
    },
    /** Once the service stops, a fetch answers with what it has instead of waiting. */
    get stopping(): boolean {
      return stopping.aborted;
    },
    wake(providerId: string): void {
      announced.set(providerId, (announced.get(providerId) ?? 0) + 1);
      for (const wake of [...(waiting.get(providerId) ?? [])]) wake();
    },
  };
}
export type OrderWaiters = ReturnType<typeof createOrderWaiters>;
