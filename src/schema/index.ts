/**
 * Builds the GraphQL schema: imports every type file (each registers one GraphQL type on the
 * builder, with the query, mutation and subscription fields that return it), then converts the
 * builder to a GraphQLSchema.
 *
 * Layout (docs/ARCHITECTURE.md "Examples to follow"): `builder.ts` holds plugins, scalars
 * and the empty root types; `types/<type-name>.ts` holds one type. A field of one type that
 * returns a type of another file sits in the file of the type it returns when the other way
 * round would import in a circle: `WorkflowRun.lineage` in `workflow-run-connection.ts`,
 * `WorkflowRun.viewerDeltas` in `viewer-delta-page.ts`. The other modules here are helpers
 * without types (context, errors, cursors, connections, input limits, follow).
 */
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import './types/error.js';
import './types/execution-mode.js';
import './types/lineage-kind.js';
import './types/run-claim.js';
import './types/run-queue-status.js';
import './types/settle-status.js';
import './types/reported-run-state.js';
import './types/workflow-run-status.js';
import './types/workflow-run.js';
import './types/workflow-run-filter.js';
import './types/order-direction.js';
import './types/workflow-run-order-field.js';
import './types/workflow-run-order.js';
import './types/workflow-run-connection.js';
import './types/workflow-run-counts.js';
import './types/viewer-deltas.js';
import './types/workflow-run-changes.js';
import './types/workflow-run-chain-event.js';
import './types/claim-input.js';
import './types/run-success.js';
import './types/reserve-workflow-run.js';
import './types/restart-workflow-run.js';
import './types/claim-workflow-run.js';
import './types/park-workflow-run.js';
import './types/settle-workflow-run.js';
import './types/renew-workflow-run-claim.js';
import './types/mark-workflow-run-running.js';
import './types/report-workflow-run-state.js';
import './types/cancel-workflow-run.js';
import './types/pause-workflow-run.js';
import './types/resume-workflow-run.js';
import './types/run-view/workflow-run-view.js';
import './types/run-view/workflow-run-view-event.js';

/**
 * The executable schema, with the `@live` query directive (the GraphQL ecosystem's
 * live-query convention, `@n1ru4l/graphql-live-query`).
 */
export const schema = builder.toSchema({ sortSchema: true, directives: [...specifiedDirectives, GraphQLLiveDirective] });
export { createContext, type GraphQLContext, type Scope } from './context.js';
