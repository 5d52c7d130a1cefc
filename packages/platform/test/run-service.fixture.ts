// A service process as main.ts runs one: runService with the process environment. Its
// one operation, `slow`, answers only after FIXTURE_SLOW_MS, to be in flight at SIGTERM.
import { BaseEnv } from '../src/config.js';
import { operation } from '../src/rpc.js';
import { runService } from '../src/service.js';
import { slowOperation } from './test-contracts.js';

const slowMs = Number(process.env.FIXTURE_SLOW_MS ?? 0);

runService({
  name: 'certification-runner',
  env: BaseEnv,
  async setup(kit) {
    kit.log.info('fixture started');
    kit.serve(
      operation(
        slowOperation,
        () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), slowMs)),
      ),
    );
  },
});
