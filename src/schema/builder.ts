import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { GraphQLContext } from './context.js';
import { decodeGlobalId, MAX_GLOBAL_ID_LENGTH } from './global-ids.js';

/**
 * The Pothos schema builder: plugins and scalars only (DESIGN.md). Types live in one file per
 * area and are imported by `index.ts`.
 *
 * Batching uses plain DataLoader instances on the context (see `context.ts`) rather than the
 * dataloader plugin, so a subscription can replace them for every event.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ErrorsPlugin, RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesQueryOptions: false,
    // One rule for malformed ids (issue 10 item 6), see global-ids.ts.
    decodeGlobalID: (globalID) => decodeGlobalId(globalID),
    nodeQueryOptions: {
      description:
        'Fetches an object by its global id (WorkflowRun.id: base64 of "WorkflowRun:<runId>"); null when no object has that id. ' +
        `A malformed id (not base64, not "<Type>:<id>", a type without global ids, longer than ${MAX_GLOBAL_ID_LENGTH} characters) ` +
        'is a GraphQL error with code BAD_USER_INPUT that quotes at most the first 16 characters of the id.',
      args: { id: { description: 'A global id, as WorkflowRun.id returns it.' } },
    },
  },
  errors: {
    defaultTypes: [],
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);

builder.queryType({ description: 'Reads of workflow runs, their lineage and their viewer deltas.' });
builder.mutationType({ description: 'Reserve, restart, claim, park and settle workflow runs.' });
