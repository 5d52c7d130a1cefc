import { type Collection, type Doc, type Store } from '@mmp/platform';
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

export function findRegistration(store: SandboxStore): Promise<Registration | null> {
  return store.registrations.findOne({ _id: 'sandbox' });
}

/** Replaces the registration: a new provider, its rail still to create. */
export async function saveRegistration(store: SandboxStore, registration: Registration): Promise<void> {
  await store.registrations.deleteMany({ _id: 'sandbox' });
  await store.registrations.insertOne(registration);
}

export async function saveRailId(store: SandboxStore, railId: string): Promise<void> {
  await store.registrations.findOneAndUpdate({ _id: 'sandbox' }, { $set: { railId } });
}

/** Acked: the settlement is due at `settleAt`. */
export function startWaiting(executions: Executions, id: string, settleAt: Date) {
  return executions.findOneAndUpdate(
    { _id: id, status: 'NEW' },
    { $set: { status: 'WAITING', settleAt, updatedAt: new Date() } },
  );
}

export function finishExecution(
  executions: Executions,
  id: string,
  from: Execution['status'],
  outcome: string,
) {
  return executions.findOneAndUpdate(
    { _id: id, status: from },
    { $set: { status: 'DONE', outcome, updatedAt: new Date() } },
  );
}

/** Decided orders whose ack the service may have taken without our hearing so, oldest first. */
export function findUnacked(executions: Executions, limit: number): Promise<Execution[]> {
  return executions.find({ status: 'NEW' }, { sort: { createdAt: 1 }, limit });
}

/** Waiting settlements, the soonest due first: at most `limit`. */
export function soonestSettlements(executions: Executions, limit: number): Promise<Execution[]> {
  return executions.find({ status: 'WAITING' }, { sort: { settleAt: 1 }, limit });
}
