import { describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { TEST_NATS_URL, eventually } from '../src/testing/index.js';

/**
 * The NATS client is patched (patches/@nats-io__nats-core@3.4.0.patch) to write its socket
 * once per event-loop turn; what a service publishes just before it closes must still go out.
 */
describe('the patched NATS client', () => {
  it('sends what was published in the same turn as close()', async () => {
    const subject = `nats-client.close.${process.pid}.${Date.now()}`;
    const listener = await connect({ servers: TEST_NATS_URL });
    const received: string[] = [];
    const subscription = listener.subscribe(subject, {
      callback: (_error, msg) => void received.push(msg.string()),
    });
    await listener.flush();
    const publisher = await connect({ servers: TEST_NATS_URL });
    publisher.publish(subject, 'last words');
    await publisher.close();
    await eventually(async () => received.length === 1);
    expect(received).toEqual(['last words']);
    subscription.unsubscribe();
    await listener.close();
  });

  it('answers many requests of one turn, each with its own reply', async () => {
    const subject = `nats-client.echo.${process.pid}.${Date.now()}`;
    const responder = await connect({ servers: TEST_NATS_URL });
    responder.subscribe(subject, { callback: (_error, msg) => void msg.respond(`re:${msg.string()}`) });
    await responder.flush();
    const requester = await connect({ servers: TEST_NATS_URL });
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => requester.request(subject, String(i), { timeout: 2000 })),
    );
    expect(replies.map((reply) => reply.string())).toEqual(Array.from({ length: 50 }, (_, i) => `re:${i}`));
    await requester.close();
    await responder.close();
  });
});
