import { z } from 'zod';
import { gatewayQuery } from '../bus/contract.js';

export const SandboxStatus = z.object({
  registered: z.boolean(),
  providerId: z.string().optional(),
  railId: z.string().optional(),
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;

export const sandboxOperations = {
  status: gatewayQuery('sandbox-provider', 'status', {
    request: z.object({}).optional(),
    reply: SandboxStatus,
    summary: 'Whether the sandbox provider has registered its rail (never its secrets)',
  }),
};
