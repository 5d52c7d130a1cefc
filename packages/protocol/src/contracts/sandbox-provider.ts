import { z } from 'zod';
import { defineOperation } from '../bus/contract.js';

export const SandboxStatus = z.object({
  registered: z.boolean(),
  providerId: z.string().optional(),
  railId: z.string().optional(),
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;

export const sandboxOperations = {
  status: defineOperation({
    service: 'sandbox-provider',
    name: 'status',
    actors: ['service', 'admin'],
    callers: ['gateway'],
    request: z.object({}).optional(),
    reply: SandboxStatus,
    summary: 'Whether the sandbox provider has registered its rail (never its secrets)',
  }),
};
