import type { Collection, Doc, Store } from '../../store/port.js';

/** What each part of the contract gets: the store under test and isolation helpers. */
export type ContractContext = {
  store(): Store;
  /** A collection no other test (or earlier run against the same database) uses. */
  fresh<T extends Doc>(): Collection<T>;
  /** Closes the store and opens it again, as a process restart would. */
  reopen(): Promise<Store>;
};
