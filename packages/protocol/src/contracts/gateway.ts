import { z } from 'zod';
import { defineOperation } from '../bus/contract.js';

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
