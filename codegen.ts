/**
 * GraphQL Code Generator config (`npm run codegen`): typed documents for the client operations
 * in `schema/operations/*.graphql`, checked against the committed SDL `schema/schema.graphql`.
 *
 * Output: `schema/generated/` (client preset). Documents are `TypedDocumentString`s
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
      presetConfig: { fragmentMasking: false },
      config: {
        documentMode: 'string',
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
        enumType: 'string-literal',
        strictScalars: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
  },
};

export default config;
