import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { GraphQLContext } from './context.js';
import { decodeGlobalId, MAX_GLOBAL_ID_LENGTH } from './global-ids.js';
import { inputValidationError } from './input-limits.js';

/**
 * The Pothos schema builder: plugins, scalars and the three (empty) root types (docs/ARCHITECTURE.md
 * "Examples followed"). Each entity lives in its own file under `types/` (its types, inputs and
 * enums), together with the query, mutation and subscription fields that return them; `index.ts`
 * imports them.
 *
 * Batching is the dataloader plugin's: loadable objects and fields (types/workflow-run.ts,
 * types/workflow-run-lineage.ts), cleared for every subscription event (follow.ts).
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ErrorsPlugin, ValidationPlugin, RelayPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // Descriptions of the Relay types and fields the plugin makes.
    nodeTypeOptions: { description: 'An object with a global id that node(id) fetches again (Relay). WorkflowRun is the only one.' },
    idFieldOptions: { description: 'Global id: base64 of "<Type>:<id>"; pass it to node(id) to fetch the object again.' },
    pageInfoTypeOptions: { description: 'Where a page of a connection sits in the whole list (Relay cursor connections).' },
    hasNextPageFieldOptions: { description: 'True when items exist after this page (paging forward: fetch more with after: endCursor).' },
    hasPreviousPageFieldOptions: { description: 'True when items exist before this page (paging backward: fetch more with before: startCursor).' },
    startCursorFieldOptions: { description: "Cursor of the page's first edge; null for an empty page." },
    endCursorFieldOptions: { description: "Cursor of the page's last edge; null for an empty page." },
    edgesFieldOptions: { description: 'The runs of this page, in list order, each with its cursor.' },
    pageInfoFieldOptions: { description: 'Cursors and whether more runs exist before and after this page.' },
    cursorFieldOptions: { description: 'Opaque keyset position of this run in the list: page after or before it.' },
    nodeFieldOptions: { description: 'The run.' },
    firstArgOptions: { description: 'Page forward: at most this many runs after `after` (0 … 100).' },
    afterArgOptions: { description: 'Cursor of the run the page starts after.' },
    lastArgOptions: { description: 'Page backward: at most this many runs before `before` (0 … 100).' },
    beforeArgOptions: { description: 'Cursor of the run the page ends before.' },
    nodesQueryOptions: false,
    // One rule for malformed ids, see global-ids.ts.
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
    // Input limits (input-limits.ts) fail before the resolver runs: their ValidationError is a
    // member of the mutation's result union, not a GraphQL error.
    unsafelyHandleInputErrors: true,
  },
  validation: { validationError: (failure) => inputValidationError(failure) },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);

builder.queryType({ description: 'Reads of workflow runs, their lineage and their viewer deltas.' });
builder.mutationType({ description: 'Reserve, restart, claim, park and settle workflow runs.' });
builder.subscriptionType({ description: 'Live views fed from the durable viewer-delta log.' });
