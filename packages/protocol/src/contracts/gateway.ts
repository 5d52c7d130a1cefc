import { z } from 'zod';
import { defineEvent } from '../bus/contract.js';

/** What payers see of a merchant: its display name and logo. */
export const ProjectDisplay = z.object({
  id: z.string(),
  name: z.string(),
  displayName: z.string().nullable(),
  logoUrl: z.string().nullable(),
});
export type ProjectDisplay = z.infer<typeof ProjectDisplay>;

export const ProjectUpdatedData = z.object({ project: ProjectDisplay });
export type ProjectUpdatedData = z.infer<typeof ProjectUpdatedData>;

/**
 * What payers see of merchants travels by event: services that show a merchant's name or
 * logo keep their own copy, so none of them calls the gateway (which calls them).
 */
export const projectEvents = {
  updated: defineEvent({
    type: 'project.updated',
    version: 1,
    data: ProjectUpdatedData,
    producer: 'gateway',
    consumers: ['payments', 'links-checkout'],
    summary: 'A project was created, or its name, display name or logo changed',
  }),
};
