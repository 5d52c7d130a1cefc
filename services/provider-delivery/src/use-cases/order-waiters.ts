/**
 * Long polls of the pull transport, each waiting for an order of its provider. `wake` is
 * called when an order of the provider is stored, here or on another replica (a notice
 * among the replicas), and every waiter is woken when the service starts to stop.
 */
export function createOrderWaiters(stopping: AbortSignal) {
  const waiting = new Map<string, Set<() => void>>();
  stopping.addEventListener(
    'abort',
    () => {
      for (const waiters of [...waiting.values()]) for (const wake of [...waiters]) wake();
    },
    { once: true },
  );
  return {
    /** Resolves after `ms`, once an order of the provider may be there, or once stopping. */
    wait(providerId: string, ms: number): Promise<void> {
      if (stopping.aborted) return Promise.resolve();
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
      for (const wake of [...(waiting.get(providerId) ?? [])]) wake();
    },
  };
}
export type OrderWaiters = ReturnType<typeof createOrderWaiters>;
