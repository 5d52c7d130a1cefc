import { z } from 'zod';
import type { Operation } from '@mmp/platform';
import { parseOrThrow } from '@mmp/protocol';
import type { Accounts } from './accounts.js';

const GetProject = z.object({ projectId: z.string().min(1) });

/** NATS operations the gateway serves to other services (`svc.gateway.*`). */
export function gatewayOperations(accounts: Accounts): Record<string, Operation> {
  return {
    /** What payers see of a merchant: its display name and logo. */
    'projects.get': async (request) => {
      const { projectId } = parseOrThrow(GetProject, request.body);
      const project = await accounts.requireProject(projectId);
      return {
        status: 200,
        body: {
          id: project._id,
          name: project.name,
          displayName: project.displayName,
          logoUrl: project.logoUrl,
        },
      };
    },
  };
}
