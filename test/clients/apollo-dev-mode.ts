/**
 * Puts Apollo Client in development mode, where it prints its cache warnings ("Missing field",
 * "Cache data may be lost", unmatched fragments). Apollo reads `globalThis.__DEV__` once, when
 * its modules load: import this module before anything that imports `@apollo/client`.
 */
(globalThis as { __DEV__?: boolean }).__DEV__ = true;

export {};
