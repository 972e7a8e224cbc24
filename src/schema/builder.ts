import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { GraphQLContext } from './context.js';

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
    nodeQueryOptions: {
      description: 'Fetches an object by its global id; null when no object has that id (also for unknown types).',
      // Unknown types answer null, as for a missing run, instead of an error.
      resolve: (_root, { id }, _context, _info, resolveNode) => (id.typename === 'WorkflowRun' ? resolveNode(id) : null),
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
