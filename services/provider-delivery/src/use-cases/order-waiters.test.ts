import { describe, expect, it } from 'vitest';
import { createOrderWaiters } from './order-waiters.js';

const settled = async (promise: Promise<void>) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 50))]);

describe('order waiters', () => {
  it('wake the waiting fetches of one provider only', async () => {
    const waiters = createOrderWaiters(new AbortController().signal);
    const mine = waiters.wait('prv_a', 10_000, waiters.mark('prv_a'));
    const theirs = waiters.wait('prv_b', 10_000, waiters.mark('prv_b'));
    waiters.wake('prv_a');
    expect(await settled(mine)).toBe(true);
    expect(await settled(theirs)).toBe(false);
    waiters.wake('prv_b');
    expect(await settled(theirs)).toBe(true);
  });

  it('end a wait at once when an order was announced while the fetch read the store', async () => {
    const waiters = createOrderWaiters(new AbortController().signal);
    const mark = waiters.mark('prv_a');
    // The order's notice arrives after the fetch's read began and before it waits.
    waiters.wake('prv_a');
    waiters.wake('prv_b');
    expect(await settled(waiters.wait('prv_a', 10_000, mark))).toBe(true);
    // A fetch that read the store after that announcement waits for the next one.
    const next = waiters.wait('prv_a', 10_000, waiters.mark('prv_a'));
    expect(await settled(next)).toBe(false);
    waiters.wake('prv_a');
    expect(await settled(next)).toBe(true);
  });

  it('let a fetch go after its time, and every fetch once the service stops', async () => {
    const stopping = new AbortController();
    const waiters = createOrderWaiters(stopping.signal);
    expect(await settled(waiters.wait('prv_a', 10, 0))).toBe(true);
    const held = [waiters.wait('prv_a', 10_000, 0), waiters.wait('prv_b', 10_000, 0)];
    stopping.abort();
    expect(await Promise.all(held.map(settled))).toEqual([true, true]);
    expect(await settled(waiters.wait('prv_a', 10_000, 0))).toBe(true);
  });
});
