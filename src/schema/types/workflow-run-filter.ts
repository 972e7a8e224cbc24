import type { WorkflowRunFilter } from '../../store/index.js';
import { builder } from '../builder.js';
import { LineageKindEnum } from './lineage-kind.js';
import { RunQueueStatusEnum } from './run-queue-status.js';
import { WorkflowRunStatusEnum } from './workflow-run-status.js';

/** `workflowRuns(filter:)`. */
export const WorkflowRunFilterRef = builder.inputType('WorkflowRunFilter', {
  description: 'Filters for workflowRuns; all optional, combined with AND.',
  fields: (t) => ({
    status: t.field({ type: [WorkflowRunStatusEnum], required: false, description: 'Runs in any of these durable states.' }),
    queueStatus: t.field({ type: [RunQueueStatusEnum], required: false, description: 'Runs in any of these scheduling states.' }),
    rootRunId: t.string({ required: false, description: 'Runs of this chain (its root run id).' }),
    parentRunId: t.string({ required: false, description: 'Direct children of this run.' }),
    lineageKind: t.field({ type: LineageKindEnum, required: false, description: 'Children of this kind only (root runs have none).' }),
    originSessionId: t.string({ required: false, description: 'Runs of this Pi session.' }),
    workflowName: t.string({ required: false, description: 'Runs of this workflow.' }),
  }),
});

/**
 * Converts a `WorkflowRunFilter` argument to the store's filter: absent and null fields are left
 * out.
 *
 * @returns undefined when no filter was given
 */
export function storeFilter(filter: typeof WorkflowRunFilterRef.$inferInput | null | undefined): WorkflowRunFilter | undefined {
  if (filter === null || filter === undefined) return undefined;
  const result: WorkflowRunFilter = {};
  if (filter.status != null) result.status = filter.status;
  if (filter.queueStatus != null) result.queueStatus = filter.queueStatus;
  if (filter.rootRunId != null) result.rootRunId = filter.rootRunId;
  if (filter.parentRunId != null) result.parentRunId = filter.parentRunId;
  if (filter.lineageKind != null) result.lineageKind = filter.lineageKind;
  if (filter.originSessionId != null) result.originSessionId = filter.originSessionId;
  if (filter.workflowName != null) result.workflowName = filter.workflowName;
  return result;
}
