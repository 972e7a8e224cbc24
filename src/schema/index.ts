/**
 * Builds the GraphQL schema: imports every type file (each registers one entity on the builder:
 * its GraphQL types, connection, inputs and enums, with the query, mutation and subscription
 * fields that return them), then converts the builder to a GraphQLSchema.
 *
 * Layout (docs/ARCHITECTURE.md "Layout"): `builder.ts` holds plugins, scalars and the empty root
 * types; `types/<entity>.ts` holds one entity, split along its own seams past about 300 lines
 * (the run: `workflow-run.ts`, `workflow-run-lineage.ts`, `workflow-run-list.ts`); each mutation
 * family has its file (`run-claim.ts`, `reservation-mutations.ts`, `claim-holder-mutations.ts`,
 * `run-control-mutations.ts`); `types/run-view/` holds the run's view. A field of one type that
 * returns a type of another file sits in the file of the type it returns when the other way
 * round would import in a circle: `WorkflowRun.lineage` in `workflow-run-lineage.ts`,
 * `WorkflowRun.claim` in `run-claim.ts`, `WorkflowRun.viewerDeltas` in `viewer-deltas.ts`. The
 * other modules here are helpers without types (context, errors, cursors, connections, input
 * limits, follow).
 */
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import './types/error.js';
import './types/workflow-run.js';
import './types/workflow-run-lineage.js';
import './types/workflow-run-list.js';
import './types/workflow-run-counts.js';
import './types/run-claim.js';
import './types/viewer-deltas.js';
import './types/workflow-run-changes.js';
import './types/workflow-run-chain-event.js';
import './types/run-success.js';
import './types/reservation-mutations.js';
import './types/claim-holder-mutations.js';
import './types/run-control-mutations.js';
import './types/run-view/workflow-run-view.js';
import './types/run-view/workflow-run-view-event.js';

/**
 * The executable schema, with the `@live` query directive (the GraphQL ecosystem's
 * live-query convention, `@n1ru4l/graphql-live-query`).
 */
export const schema = builder.toSchema({ sortSchema: true, directives: [...specifiedDirectives, GraphQLLiveDirective] });
export { createContext, type GraphQLContext, type Scope } from './context.js';
