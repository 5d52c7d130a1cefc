import type { Deps } from './deps.js';

/**
 * Keeps stored states in line with the clock: links past their date become EXPIRED (for
 * list filters; reads compute it anyway) and idle sessions past theirs become expired.
 * Each is a guarded bulk update, so replicas sweeping at once agree.
 */
export async function sweepOnce(deps: Deps): Promise<{ links: number; sessions: number }> {
  const now = deps.now();
  const links = await deps.db.links.updateMany(
    { status: 'ACTIVE', expiresAt: { $ne: null, $lte: now } },
    { $set: { status: 'EXPIRED', updatedAt: now } },
  );
  const sessions = await deps.db.sessions.updateMany(
    { status: 'idle', expiresAt: { $lte: now } },
    { $set: { status: 'expired', updatedAt: now } },
  );
  return { links, sessions };
}

export function startSweeper(deps: Deps, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepOnce(deps).catch((error) => deps.log.warn({ err: error }, 'expiry sweep failed'));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
