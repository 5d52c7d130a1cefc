import { projectEvents, type ProjectDisplay } from '@mmp/protocol';
import { DuplicateKeyError, type Doc } from './store/port.js';
import type { ServiceKit } from './service.js';

type ProjectCopy = Doc & ProjectDisplay & { occurredAt: string };

/**
 * The name shown for a project whose first `project.updated` has not reached this service
 * yet (moments after its creation): a neutral word, never its id, and no logo.
 */
export const UNKNOWN_PROJECT_NAME = 'Merchant';

/** What a service that shows merchants to payers knows of projects. */
export type ProjectDirectory = {
  /** The project as its latest `project.updated` said, or under UNKNOWN_PROJECT_NAME until one came. */
  get(projectId: string): Promise<ProjectDisplay>;
};

/**
 * A service's own copy of projects' display info (name, display name, logo), fed by the
 * gateway's `project.updated` events through the durable consumer `durable`, from the first
 * event in the stream: the service never calls the gateway, which calls it. A late or
 * redelivered event never overwrites a newer one (guarded on `occurredAt`).
 */
export function followProjects(kit: ServiceKit, durable: string): ProjectDirectory {
  const copies = kit.store.collection<ProjectCopy>('projects');
  kit.consume({
    durable,
    events: [projectEvents.updated],
    handle: async ({ data: { project }, occurredAt }) => {
      const { id, ...display } = project;
      try {
        await copies.findOneAndUpdate(
          { _id: id, occurredAt: { $lt: occurredAt } },
          { $set: { id, ...display, occurredAt } },
          { upsert: true },
        );
      } catch (error) {
        // The copy holds a newer (or this same) event already.
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
    },
  });
  return {
    async get(projectId) {
      const copy = await copies.findOne({ _id: projectId });
      if (!copy) return { id: projectId, name: UNKNOWN_PROJECT_NAME, displayName: null, logoUrl: null };
      return { id: copy.id, name: copy.name, displayName: copy.displayName, logoUrl: copy.logoUrl };
    },
  };
}
