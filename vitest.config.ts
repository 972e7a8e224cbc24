import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // One graphql instance in tests, as in production: Vite would resolve `graphql` to its
    // `module` entry (index.mjs) for transformed source files, while externalized packages
    // (graphql-yoga, Pothos) load `main` (index.js) through Node. Two instances break
    // `instanceof GraphQLError`, so yoga would mask the server's own user-facing errors.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
