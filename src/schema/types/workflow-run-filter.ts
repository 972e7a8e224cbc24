import { MAX_SEARCH_LENGTH, type WorkflowRunFilter } from '../../store/index.js';
import { badUserInput } from '../bad-user-input.js';
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
    createdAfter: t.field({ type: 'DateTime', required: false, description: 'Runs created strictly after this instant (exclusive).' }),
    createdBefore: t.field({ type: 'DateTime', required: false, description: 'Runs created strictly before this instant (exclusive).' }),
    updatedAfter: t.field({ type: 'DateTime', required: false, description: 'Runs whose updatedAt is strictly after this instant (exclusive).' }),
    updatedBefore: t.field({ type: 'DateTime', required: false, description: 'Runs whose updatedAt is strictly before this instant (exclusive).' }),
    search: t.string({
      required: false,
      description:
        `Runs whose runId or workflowName contains this text, ignoring ASCII case (A-Z = a-z); every other character, % and _ ` +
        `included, matches only itself. At most ${MAX_SEARCH_LENGTH} characters. No index can answer it: a page walks its order ` +
        'until it is full, so a rare text costs a walk of the whole (otherwise filtered) list.',
    }),
  }),
});

/**
 * Converts a `WorkflowRunFilter` argument to the store's filter: absent and null fields are left
 * out; DateTime values become epoch ms.
 *
 * @returns undefined when no filter was given
 * @throws GraphQLError(BAD_USER_INPUT) `search must be at most 256 characters`
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
  if (filter.createdAfter != null) result.createdAfter = filter.createdAfter.getTime();
  if (filter.createdBefore != null) result.createdBefore = filter.createdBefore.getTime();
  if (filter.updatedAfter != null) result.updatedAfter = filter.updatedAfter.getTime();
  if (filter.updatedBefore != null) result.updatedBefore = filter.updatedBefore.getTime();
  if (filter.search != null) {
    if (filter.search.length > MAX_SEARCH_LENGTH) throw badUserInput(`search must be at most ${MAX_SEARCH_LENGTH} characters`);
    result.search = filter.search;
  }
  return result;
}
