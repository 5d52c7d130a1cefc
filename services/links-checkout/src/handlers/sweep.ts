import { startLoop, type Loop, type MetricsRegistry } from '@mmp/platform';
import type { Deps } from './deps.js';

/** Replicas' clocks differ a little; each sweep looks this far behind the previous one. */
const CLOCK_MARGIN_MS = 60_000;

/**
 * Keeps stored states in line with the clock: links past their date become EXPIRED (for
 * list filters; reads compute it anyway) and idle sessions past theirs become expired.
 * Each is a guarded bulk update, so replicas sweeping at once agree. After the first sweep,
 * only deadlines since the previous one are looked at (through the `expiresAt` index), so a
 * sweep never reads the whole history of links and sessions.
 */
export async function sweepOnce(
  deps: Deps,
  previous: Date | null = null,
): Promise<{ links: number; sessions: number; at: Date }> {
  const now = deps.now();
  const due = {
    $lte: now,
    ...(previous ? { $gt: new Date(previous.getTime() - CLOCK_MARGIN_MS) } : {}),
  };
  const links = await deps.db.links.updateMany(
    { status: 'ACTIVE', expiresAt: { $ne: null, ...due } },
    { $set: { status: 'EXPIRED', updatedAt: now } },
  );
  const sessions = await deps.db.sessions.updateMany(
    { status: 'idle', expiresAt: due },
    { $set: { status: 'expired', updatedAt: now } },
  );
  return { links, sessions, at: now };
}

export function startSweeper(deps: Deps, intervalMs: number, metrics?: MetricsRegistry): Loop {
  // In memory on purpose: after a restart the first sweep looks at everything once.
  let previous: Date | null = null;
  return startLoop({
    name: 'link_sweep',
    intervalMs,
    log: deps.log,
    metrics,
    pass: async () => {
      previous = (await sweepOnce(deps, previous)).at;
    },
  });
}
