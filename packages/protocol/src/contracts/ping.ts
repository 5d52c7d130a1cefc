import { z } from 'zod';
import { gatewayQuery, type OperationContract } from '../bus/contract.js';
import { SERVICE_NAMES, type ServiceName } from '../bus/subjects.js';

export const Ping = z.object({
  service: z.string(),
  status: z.literal('ok'),
  store: z.enum(['mongodb', 'embedded']),
});
export type Ping = z.infer<typeof Ping>;

const Empty = z.object({}).optional();

/** `svc.<service>.ping`, which every service answers: what `/v1/health` asks each one. */
export const PING_OPERATIONS = Object.fromEntries(
  SERVICE_NAMES.map((service) => [
    service,
    gatewayQuery(service, 'ping', {
      request: Empty,
      reply: Ping,
      summary: 'The service answers, with the store it runs on',
    }),
  ]),
) as Record<ServiceName, OperationContract<typeof Empty, typeof Ping, 'service' | 'admin'>>;

export function pingOperation(service: ServiceName) {
  return PING_OPERATIONS[service];
}
