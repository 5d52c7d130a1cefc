import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe } from 'vitest';
import { describeIndexContract } from './indexes.js';
import { describeQueryContract } from './queries.js';
import { describeUpdateContract } from './updates.js';
import type { Doc, Store } from '../../store/port.js';
import type { ContractContext } from './context.js';

/**
 * The store port's contract: every adapter runs this same suite, so a service that passes
 * its own tests on the embedded store behaves the same on MongoDB. `open` is called before
 * each test and must return a store over the same data each time (the restart test relies
 * on it).
 */
export function describeStoreContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract: ${name}`, () => {
    let current: Store | undefined;

    const context: ContractContext = {
      store() {
        if (!current) throw new Error('store not open');
        return current;
      },
      fresh<T extends Doc>() {
        return context.store().collection<T>(`c_${randomUUID().replaceAll('-', '')}`);
      },
      async reopen() {
        await current?.close();
        current = undefined;
        current = await open();
        return current;
      },
    };

    beforeEach(async () => {
      current = await open();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });

    describeQueryContract(context);
    describeUpdateContract(context);
    describeIndexContract(context);
  });
}
