import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Test directories with a project of their own; anything else under test/ runs in `other`.
 * Only `*.test.ts` files are collected: the child-process entry files in test/children/ and the
 * modules in test/helpers/ never are.
 */
const PROJECTS = ['store', 'delivery', 'graphql', 'server', 'clients', 'live', 'faults', 'e2e'] as const;

/**
 * The projects of `npm run test:fast`. Their files share worker processes (`isolate: false`): a
 * worker imports the server once per project instead of once per file, and
 * test/helpers/leak-guard.ts fails a file that leaves process-wide state changed
 * (docs/TESTING.md "Shared workers"). They run first, on every core; the other projects after
 * them, isolated, on vitest's default (one core left to the main process).
 */
const SHARED_WORKER_PROJECTS: ReadonlySet<string> = new Set(['store', 'delivery', 'graphql', 'server', 'live']);

/** Options of a project whose files share worker processes (see {@link SHARED_WORKER_PROJECTS}). */
const SHARED_WORKERS = {
  isolate: false,
  maxWorkers: availableParallelism(),
  setupFiles: ['test/helpers/leak-guard.ts'],
  sequence: { groupOrder: 0 },
};

/** Options of the other projects: isolated files, vitest's default worker count, after the shared-worker group. */
const ISOLATED = { sequence: { groupOrder: 1 } };

/**
 * Files of the fast projects (store, delivery, graphql, server, live) that take seconds each: child
 * processes, thousands of rows, grace timers. `npm run test:fast` leaves them out; they run in
 * project `slow` (`npm test` runs every project; `vitest run --project slow` runs them alone).
 * Times of one `npm run test:fast` on 2 cores shared with other work (load average 15), 2026-12-01.
 */
const SLOW = [
  'test/graphql/run-list-order.test.ts', // 47 s: every list order over a large run set
  'test/server/database-directory.test.ts', // 12 s: starts the server process
  'test/server/busy-port.test.ts', // 12 s: npm run demo / npm start processes
  'test/server/demo-pi-workflows.test.ts', // 2 s: the demo's server and host processes
  'test/graphql/pi-workflows-file.test.ts', // 12 s: builds pi-workflows state files
  'test/store/run-order-index.test.ts', // 12 s: a large run set, copied into a pi-workflows file
  'test/store/claim-race.test.ts', // 11 s: two worker processes
  'test/live/shutdown.test.ts', // 10 s: server child processes, close grace periods
  'test/live/cross-process.test.ts', // a writer process, 50 latency samples
  'test/live/replica.test.ts', // 14 s: primary and replica server processes, three times
];

export default defineConfig({
  resolve: {
    // One graphql instance in tests, as in production: Vite would resolve `graphql` to its
    // `module` entry (index.mjs) for transformed source files, while externalized packages
    // (graphql-yoga, Pothos) load `main` (index.js) through Node. Two instances break
    // `instanceof GraphQLError`, so yoga would mask the server's own user-facing errors.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // `npm test` runs every project; `npm run test:fast` the ones a developer reruns while
    // working (store, delivery, graphql, server, live, without SLOW). `vitest run --project faults` runs one.
    projects: [
      ...PROJECTS.map((name) => ({
        extends: true as const,
        test: { name, include: [`test/${name}/**/*.test.ts`], exclude: SLOW, ...(SHARED_WORKER_PROJECTS.has(name) ? SHARED_WORKERS : ISOLATED) },
      })),
      { extends: true as const, test: { name: 'slow', include: SLOW, ...ISOLATED } },
      {
        extends: true as const,
        test: { name: 'other', include: ['test/**/*.test.ts'], exclude: PROJECTS.map((name) => `test/${name}/**`), ...ISOLATED },
      },
    ],
  },
});
