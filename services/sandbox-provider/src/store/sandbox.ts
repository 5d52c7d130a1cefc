import type { Collection, Doc, Store } from '@mmp/platform';
import type { ExecutionOrder, OrderAck } from '@mmp/protocol';

/** Who the sandbox is on the gateway; the key and secret are sealed with SERVICE_SECRET_KEY. */
export type Registration = Doc & {
  _id: 'sandbox';
  providerId: string;
  sealedApiKey: string;
  sealedSigningSecret: string;
  railId: string | null;
  createdAt: Date;
};

/**
 * One order as the simulated operator sees it. NEW: decided, ack not yet taken by the
 * service. WAITING: acked, settlement due at `settleAt`. DONE: settled, rejected, never
 * to settle (no confirmation) or expired before the ack went through.
 */
export type Execution = Doc & {
  _id: string;
  order: ExecutionOrder;
  ack: OrderAck;
  settlement: 'COMPLETED' | 'FAILED' | null;
  delayMs: number;
  status: 'NEW' | 'WAITING' | 'DONE';
  settleAt: Date | null;
  outcome: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export async function openSandboxStore(store: Store) {
  const registrations = store.collection<Registration>('registration');
  const executions = store.collection<Execution>('executions');
  await executions.ensureIndex({ fields: { status: 1, settleAt: 1 } });
  return { registrations, executions };
}
export type SandboxStore = Awaited<ReturnType<typeof openSandboxStore>>;
export type Executions = Collection<Execution>;
