import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Delivery = {
  path: string;
  eventId: string;
  type: string;
  token: string;
  /** The X-Service-Event-Id header, which must equal the body's id. */
  headerEventId: string;
  /** answered: the 200 was written out; aborted: the sender went away before it was. */
  outcome: 'held' | 'answered' | 'aborted';
};

/**
 * A merchant's webhook receiver that tells apart a delivery it answered from one whose
 * sender died while the answer was held back, so a test can kill the sender mid-send.
 */
export async function startMerchantReceiver() {
  const deliveries: Delivery[] = [];
  const held = new Map<Delivery, ServerResponse>();
  let holding = false;
  const answer = (delivery: Delivery, response: ServerResponse) => {
    response.on('finish', () => (delivery.outcome = 'answered'));
    response.writeHead(200).end('ok');
  };
  const server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw) as { id: string; type: string; data: { token: string } };
      const delivery: Delivery = {
        path: request.url ?? '/',
        eventId: body.id,
        type: body.type,
        token: body.data.token,
        headerEventId: String(request.headers['x-service-event-id']),
        outcome: 'held',
      };
      deliveries.push(delivery);
      if (!holding) return answer(delivery, response);
      held.set(delivery, response);
      response.on('close', () => {
        if (delivery.outcome === 'held') delivery.outcome = 'aborted';
        held.delete(delivery);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    deliveries,
    held: () => [...held.keys()],
    /** While holding, requests are read but not answered. */
    hold(on: boolean) {
      holding = on;
      if (!on) for (const [delivery, response] of held) answer(delivery, response);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
