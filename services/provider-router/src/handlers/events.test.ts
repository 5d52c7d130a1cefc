import { describe, expect, it } from 'vitest';
import type { ReceivedEvent } from '@mmp/platform';
import { routerEventLane, type ROUTER_EVENTS } from './events.js';

type RouterEvent = ReceivedEvent<(typeof ROUTER_EVENTS)[number]>;

/** Only the fields a lane is read from; the rest of an event does not choose its lane. */
const event = (type: string, data: object) => ({ type, data }) as unknown as RouterEvent;
const outcome = (type: string, railId: string, orderKey: string) =>
  event(type, { railId, orderKey, paymentId: `pay_${orderKey}` });

describe('the lanes of provider-router’s events', () => {
  it('puts every delivery outcome of one rail in one lane, whatever its order or kind', () => {
    const lanes = new Set([
      routerEventLane(outcome('delivery.accepted', 'rail_a', 'ord_1')),
      routerEventLane(outcome('delivery.failed', 'rail_a', 'ord_2')),
      routerEventLane(outcome('delivery.expired', 'rail_a', 'ord_3')),
    ]);
    expect(lanes.size).toBe(1);
    expect(routerEventLane(outcome('delivery.accepted', 'rail_b', 'ord_1'))).not.toBe([...lanes][0]);
  });

  it('routes each payment and each transfer in a lane of its own, apart from the rails', () => {
    const payment = (id: string) => event('payment.initiated', { payment: { id } });
    const transfer = (transferId: string) => event('transfer.requested', { transferId });
    const lanes = [
      routerEventLane(payment('p1')),
      routerEventLane(payment('p2')),
      routerEventLane(transfer('p1')),
      routerEventLane(outcome('delivery.accepted', 'p1', 'ord_1')),
    ];
    expect(new Set(lanes).size).toBe(4);
    expect(routerEventLane(payment('p1'))).toBe(lanes[0]);
  });

  it('keeps channel badges in one lane, in stream order', () => {
    expect(routerEventLane(event('certification.channel-certified', {}))).toBe(
      routerEventLane(event('certification.channel-uncertified', {})),
    );
  });
});
