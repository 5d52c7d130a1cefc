import { z } from 'zod';
import type { Operation } from '@mmp/platform';
import {
  appError,
  fieldErrors,
  parseOrThrow,
  settlementEventJsonSchema,
  validationMessage,
  requireActor,
} from '@mmp/protocol';
import { orderStatusView } from '../domain/order.js';
import { dayBounds, reconcile } from '../domain/reconciliation.js';
import { findProvider } from './providers.js';
import { type RouterDeps } from './deps.js';

const StatusInput = z.object({ paymentId: z.string().min(1) }).strict();

const ReconcileQuery = z.object({
  providerId: z.string().min(1, 'providerId is required'),
  date: z.iso.date('date must be a day, YYYY-MM-DD'),
  livemode: z.enum(['true', 'false'], { error: 'livemode must be true or false' }).default('false'),
});

export function queryOperations(deps: RouterDeps): Record<string, Operation> {
  const { db } = deps;
  const reconcileReport: Operation = async (request, { actor }) => {
    requireActor(actor, ['admin', 'service']);
    const parsed = ReconcileQuery.safeParse(request.query);
    if (!parsed.success) {
      const fields = fieldErrors(parsed.error);
      throw appError('invalid_request', validationMessage(fields), fields);
    }
    const { providerId, date } = parsed.data;
    const livemode = parsed.data.livemode === 'true';
    await findProvider(deps, providerId);
    const { from, to } = dayBounds(date);
    const day = { $gte: from, $lt: to };
    const orders = await db.orders.find({ providerId, livemode, createdAt: day });
    const orderKeys = orders.map((order) => order._id);
    const settlementsOfOrders = orderKeys.length
      ? await db.settlements.find({ orderKey: { $in: orderKeys } })
      : [];
    const settlementsOfDay = await db.settlements.find({ providerId, receivedAt: day });
    const mismatches = await db.mismatches.find({ providerId, livemode, receivedAt: day });
    const report = reconcile({
      providerId,
      date,
      livemode,
      orders,
      settlementsOfOrders,
      settlementsOfDay,
      mismatches,
    });
    return { status: 200, body: report };
  };

  return {
    /** For payments' verify: the order of a payment and its latest final settlement. */
    'orders.status': async (request, { actor }) => {
      requireActor(actor, ['service']);
      const { paymentId } = parseOrThrow(StatusInput, request.body ?? {});
      const order = await db.orders.findOne({ paymentId });
      if (!order) return { status: 200, body: { order: null, settlement: null } };
      const [latest] = await db.settlements.find(
        { orderKey: order._id, status: { $ne: 'PENDING' } },
        { sort: { receivedAt: -1 }, limit: 1 },
      );
      const settlement = latest
        ? {
            settlementId: latest._id,
            paymentId: order.paymentId,
            orderKey: order._id,
            providerId: latest.providerId,
            status: latest.status,
            amount: order.amount,
            currency: order.currency,
            network: latest.network,
            settledAt: latest.settledAt,
            failureCode: latest.failureCode,
          }
        : null;
      return { status: 200, body: { order: orderStatusView(order), settlement } };
    },
    reconcile: reconcileReport,
    // The name the gateway's admin route table uses for the same report.
    'reconciliation.report': reconcileReport,
    /** The served JSON Schema is generated from the zod schema that validates settlements. */
    schema: async (_request, { actor }) => {
      if (actor.kind !== 'provider' && actor.kind !== 'admin')
        throw appError('insufficient_permissions', 'Only providers read the protocol schema.');
      return { status: 200, body: settlementEventJsonSchema() };
    },
  };
}
