// A service process as main.ts runs one: runService with the process environment. Its
// one operation, `slow`, answers only after FIXTURE_SLOW_MS, to be in flight at SIGTERM.
import { BaseEnv } from '../src/config.js';
import { runService } from '../src/service.js';

const slowMs = Number(process.env.FIXTURE_SLOW_MS ?? 0);

runService({
  name: 'certification-runner',
  env: BaseEnv,
  async start({ log }) {
    log.info('fixture started');
    return {
      operations: {
        slow: () =>
          new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: { done: true } }), slowMs)),
      },
    };
  },
});
