import { DEFAULT_RUN_ORDER, type RunOrder } from '../../store/index.js';
import { builder } from '../builder.js';
import { OrderDirectionEnum } from './order-direction.js';
import { WorkflowRunOrderFieldEnum } from './workflow-run-order-field.js';

/** `input WorkflowRunOrder { field: WorkflowRunOrderField!  direction: OrderDirection! }` (docs/GRAPHQL-CONTRACT.md). */
export const WorkflowRunOrderRef = builder.inputType('WorkflowRunOrder', {
  description: 'An order of workflowRuns (GitHub style). Default: {field: CREATED_AT, direction: DESC}, newest first.',
  fields: (t) => ({
    field: t.field({ type: WorkflowRunOrderFieldEnum, required: true, description: 'The field to order by (then runId).' }),
    direction: t.field({ type: OrderDirectionEnum, required: true, description: 'ASC or DESC, for the field and the runId tie-breaker.' }),
  }),
});

/**
 * Converts a `WorkflowRunOrder` argument to the store's order.
 *
 * @returns `DEFAULT_RUN_ORDER` (created_at desc) when absent or null
 */
export function storeOrder(order: typeof WorkflowRunOrderRef.$inferInput | null | undefined): RunOrder {
  return order == null ? DEFAULT_RUN_ORDER : { field: order.field, direction: order.direction };
}
