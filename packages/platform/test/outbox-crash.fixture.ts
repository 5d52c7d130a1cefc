// A service process that writes a state change with its event and is killed before the
// event is published: it announces the point, then waits for SIGKILL.
import { openEmbeddedStore } from '../src/store/embedded.js';
import { createOutbox } from '../src/outbox.js';
import { createLogger } from '../src/logger.js';

const [dataDir, eventId] = process.argv.slice(2) as [string, string];
const store = await openEmbeddedStore({ dir: dataDir });
const payments = store.collection('payments');
const outbox = createOutbox({
  log: createLogger({ service: 'fixture', level: 'silent' }),
  collections: [payments],
  publish: () => {
    process.stdout.write('written\n');
    return new Promise(() => undefined);
  },
});
await outbox.insert(payments, { _id: 'pay_crash', status: 'PENDING' }, [
  { id: eventId, type: 'payment.created', occurredAt: new Date().toISOString(), data: { id: 'pay_crash' } },
]);
