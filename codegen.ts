/**
 * GraphQL Code Generator config (`npm run codegen`): typed documents for the client operations
 * in `schema/operations/*.graphql`, checked against the committed SDL `schema/schema.graphql`.
 *
 * Output: `schema/generated/` (client preset), plus the cache set-up data of the client libraries
 * (docs/CLIENTS.md "Client caches"): `possible-types.ts` for Apollo Client and `introspection.json` for
 * urql Graphcache. Documents are `TypedDocumentString`s
 * (`documentMode: 'string'`): a plain string for `fetch` bodies and graphql-ws `query`, typed
 * with its result and variables. `test/graphql/codegen.test.ts` fails when the committed output
 * is stale.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';

/** Where the generated files go (a directory, as the client preset requires). */
export const GENERATED_DIR = 'schema/generated/';

const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['schema/operations/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    [GENERATED_DIR]: {
      preset: 'client',
      // persistedDocuments: also writes persisted-documents.json (sha256 hash → document), the
      // manifest of `--persisted-operations`; each document carries its hash in `__meta__.hash`.
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: {
        documentMode: 'string',
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
        enumType: 'string-literal',
        strictScalars: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
    // Apollo Client's `possibleTypes` (the fragment matcher): which object types belong to each
    // interface and union, so the cache can read `... on Error` / `... on Node` spreads.
    [`${GENERATED_DIR}possible-types.ts`]: {
      plugins: ['fragment-matcher'],
      config: { useExplicitTyping: true },
    },
    // The schema for urql's schema-aware Graphcache (`cacheExchange({ schema })`): interfaces,
    // unions and nullability, so partial results and abstract spreads are read correctly.
    [`${GENERATED_DIR}introspection.json`]: {
      plugins: ['introspection'],
      config: { minify: true, descriptions: false },
    },
  },
};

export default config;
