import { expireDueLinks } from '../store/links.js';
import { expireDueSessions } from '../store/sessions.js';
import type { Deps } from '../deps.js';

/** Replicas' clocks differ a little; each sweep looks this far behind the previous one. */
const CLOCK_MARGIN_MS = 60_000;

/**
 * Keeps stored states in line with the clock: links past their date become EXPIRED (for
 * list filters; reads compute it anyway) and sessions no payment holds past theirs become
 * expired. Each is a guarded bulk update, so replicas sweeping at once agree. After the first
 * sweep, only deadlines since the previous one are looked at (through the `expiresAt` index),
 * so a sweep never reads the whole history of links and sessions.
 */
export async function sweepOnce(
  deps: Pick<Deps, 'db' | 'now'>,
  previous: Date | null = null,
): Promise<{ links: number; sessions: number; at: Date }> {
  const now = deps.now();
  const due = {
    $lte: now,
    ...(previous ? { $gt: new Date(previous.getTime() - CLOCK_MARGIN_MS) } : {}),
  };
  const links = await expireDueLinks(deps.db, due, now);
  const sessions = await expireDueSessions(deps.db, due, now);
  return { links, sessions, at: now };
}

/** The sweep loop's pass; in memory on purpose: after a restart the first sweep looks at everything once. */
export function createSweeper(deps: Pick<Deps, 'db' | 'now'>) {
  let previous: Date | null = null;
  return async () => {
    previous = (await sweepOnce(deps, previous)).at;
  };
}
