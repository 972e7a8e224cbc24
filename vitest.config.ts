import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** Test directories with a project of their own; anything else under test/ runs in `other`. */
const PROJECTS = ['store', 'graphql', 'server', 'clients', 'live', 'faults', 'e2e'] as const;

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
    // working (store, graphql, server, live). `vitest run --project faults` runs one.
    projects: [
      ...PROJECTS.map((name) => ({ extends: true as const, test: { name, include: [`test/${name}/**/*.test.ts`] } })),
      {
        extends: true as const,
        test: { name: 'other', include: ['test/**/*.test.ts'], exclude: PROJECTS.map((name) => `test/${name}/**`) },
      },
    ],
  },
});
