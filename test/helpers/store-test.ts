/**
 * The store tests' vitest fixture, in a module of its own: `test.extend` runs at import and needs
 * the vitest runner, while store-fixtures.ts is also imported by child processes
 * (test/children/run-reserver.ts) that run outside it.
 */
import { test } from 'vitest';
import { openTestStore, type OpenTestStoreOptions } from './store-fixtures.js';

/**
 * `test` (vitest `test.extend`) with a fresh store per test: `({ t }) => …` gets a
 * {@link TestStore} opened by {@link openTestStore}, closed (and its directory removed) after the
 * test, also when it fails. A test that does not name `t` opens nothing. Hooks get it too:
 * `beforeEach(({ t }) => …)`. Options: `storeOptions` (default `{}`), e.g.
 * `storeTest.extend('storeOptions', { file: true })` for a file-backed store, or
 * `it.override('storeOptions', …)` inside a `describe`.
 */
export const storeTest = test.extend('storeOptions', {} as OpenTestStoreOptions).extend('t', async ({ storeOptions }, { onCleanup }) => {
  const opened = openTestStore(storeOptions);
  onCleanup(() => opened.close());
  return opened;
});
