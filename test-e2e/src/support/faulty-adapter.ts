import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  answerHealthCheck,
  paymentAck,
  pushSettlement,
  settlementOf,
  verifyServiceCall,
  type ExecutionOrder,
} from '@mmp/provider-kit';
import { ProviderRequest } from '@mmp/protocol';

/** One deliberate fault of a webhook adapter, each the fault a certification case names. */
export type Fault =
  | 'accepts-wrong-signature'
  | 'settles-in-cents'
  | 'executes-repeated-key-twice'
  | 'never-settles'
  | 'echoes-another-key';

/**
 * A webhook adapter built like the kit's example (verify, ack at once, settle shortly after),
 * but with one `fault`: certification must fail the case(s) naming that fault and no other.
 */
export async function startFaultyAdapter(options: {
  fault: Fault | 'none';
  railSecret: string;
  providerId: string;
  signingSecret: string;
  serviceUrl: string;
  port: number;
}) {
  const { fault } = options;
  const executed = new Set<string>();

  function execute(order: ExecutionOrder) {
    if (fault === 'never-settles') return;
    // The cents bug: "150.00" becomes "15000" when the decimal point is dropped.
    const amount = fault === 'settles-in-cents' ? order.amount.replace('.', '') : order.amount;
    setTimeout(() => {
      void pushSettlement({
        baseUrl: options.serviceUrl,
        providerId: options.providerId,
        signingSecret: options.signingSecret,
        event: { ...settlementOf(order), amount },
      }).catch(() => undefined);
    }, 50);
  }

  function answer(raw: Buffer, request: IncomingMessage): { status: number; body: unknown } {
    const verdict = verifyServiceCall({ rawBody: raw, headers: request.headers, secret: options.railSecret });
    if (!verdict.ok && fault !== 'accepts-wrong-signature')
      return { status: 401, body: { error: 'signature' } };
    const parsed = ProviderRequest.safeParse(JSON.parse(raw.toString()));
    if (!parsed.success) return { status: 422, body: { error: 'invalid' } };
    const call = parsed.data;
    if (call.type === 'health.check') return { status: 200, body: answerHealthCheck(call) };
    // A correct adapter executes a key once; this one forgets, when that is its fault.
    if (fault === 'executes-repeated-key-twice' || !executed.has(call.idempotency_key)) {
      executed.add(call.idempotency_key);
      execute(call);
    }
    const ack = paymentAck(call, 'ACCEPTED');
    return {
      status: 200,
      body: fault === 'echoes-another-key' ? { ...ack, idempotency_key: `${call.idempotency_key}0` } : ack,
    };
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { status, body } = answer(Buffer.concat(chunks), request);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
