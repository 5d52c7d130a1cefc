import type { BusClient, Logger, ProjectDirectory } from '@mmp/platform';
import type { LinksCheckoutDb } from './store/db.js';

export type Settings = {
  publicUrl: string;
  sessionTtlSeconds: number;
  /**
   * How long a pay attempt may wait for payments (its two calls' timeouts and a margin):
   * a session still in that attempt past it lost its process, and goes back to the form.
   */
  attemptMs: number;
};

/** What every use-case and handler receives: explicit dependencies, no globals. */
export type Deps = {
  db: LinksCheckoutDb;
  bus: BusClient;
  /** Merchants' names and logos, as the gateway's project.updated events said. */
  projects: ProjectDirectory;
  log: Logger;
  settings: Settings;
  now: () => Date;
  /** Draws a link's short code; a test gives its own to force a collision. */
  newShortCode: () => string;
};
