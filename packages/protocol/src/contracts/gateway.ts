import { z } from 'zod';
import { defineEvent, defineOperation } from '../bus/contract.js';

/** What payers see of a merchant: its display name and logo. */
export const ProjectDisplay = z.object({
  id: z.string(),
  name: z.string(),
  displayName: z.string().nullable(),
  logoUrl: z.string().nullable(),
});
export type ProjectDisplay = z.infer<typeof ProjectDisplay>;

export const gatewayOperations = {
  project: defineOperation({
    service: 'gateway',
    name: 'projects.get',
    actors: ['service'],
    callers: ['links-checkout', 'payments'],
    request: z.object({ projectId: z.string().min(1) }),
    reply: ProjectDisplay,
    errors: ['resource_not_found'],
    summary: "A project's display name and logo",
  }),
};

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
