/**
 * The workflow state store (docs/STORE-RULES.md): the only place SQL lives. Import from here.
 */
export { WorkflowStore } from './workflow-store.js';
export { projectIdFor, type WorkflowStoreOptions } from './store-open.js';
export { replicaRefusalMessage } from './replica-file.js';
export { StoreError, claimNotLiveMessage, isStoreError, type StoreErrorKind } from './errors.js';
export { canonicalJson, normalizeJson, type JsonValue } from './canonical-json.js';
export { StateDatabase } from './database.js';
export { closeWriteAheadLog } from './connection.js';
export { applyMigrations, loadMigrations, MIGRATIONS_DIR, type Migration } from './migrations.js';
export {
  terminalFingerprint,
  TERMINAL_QUEUE_STATUSES,
  TERMINAL_RUN_STATUSES,
  type ExecutionMode,
  type LineageKind,
  type QueueStatus,
  type RunClaimRecord,
  type RunStatus,
  type WorkflowRunRecord,
  type WorkflowSource,
  type WorkflowSourceIdentity,
} from './run-records.js';
export type { ClaimRequest, DefinitionReservation, PreparedRun, ReservationInput, ReservedRun, ReserveWorkflowRunInput } from './run-reservation.js';
export { definitionDigest } from './definition-digest.js';
export type { ClaimNextWorkflowRunInput, ClaimWorkflowRunInput, RunClaimInput } from './run-claims.js';
export { MAX_RESTARTS } from './restart-policy.js';
export { restartRunIdFor, type RestartResult, type RestartWorkflowRunInput } from './run-restart.js';
export { CANCELLED_MESSAGE, type CancelWorkflowRunInput, type SettleStatus, type SettleWorkflowRunInput } from './run-settlement.js';
export { NO_PROGRESS_DETAIL_LIMIT } from './worker-transitions.js';
export { INTERACTION_DEADLINE_ERROR } from './interaction-timeout.js';
export type { ReportWorkflowRunStateInput, RunEventRecord } from './engine-reports.js';
export { MAX_PAGE_SIZE } from './run-queries.js';
export {
  DEFAULT_RUN_ORDER,
  type KeyedRun,
  type LineageKey,
  type LineageSliceRequest,
  type RunIdSlice,
  type RunKey,
  type RunOrder,
  type RunOrderField,
  type RunSlice,
  type RunSliceRequest,
} from './run-slices.js';
export { asciiLower, matchesFilter, matchesFixedParts, MAX_SEARCH_LENGTH, mayHaveMatched, type WorkflowRunFilter } from './run-filter.js';
export type { ChildRunKey, RunIdOnly } from './run-columns.js';
export {
  BUMP_TARGETS,
  VIEWER_RETENTION,
  VIEWER_TARGET_TYPES,
  type ViewerDelta,
  type ViewerDeltaBatch,
  type ViewerDeltaDraft,
  type ViewerDeltaRead,
  type ViewerPatchOperation,
  type ViewerTargetType,
} from './viewer-deltas.js';
export {
  workflowMessageIdFor,
  type CreateWorkflowMessageInput,
  type WorkflowMessageContent,
  type WorkflowMessageKind,
  type WorkflowMessageRecord,
  type WorkflowTurnRecord,
  type WorkflowTurnStopReason,
} from './workflow-messages.js';
export type { OpenInteractionInput } from './interactions.js';
export { MAX_LEASE_MS, systemClock, type Clock } from './values.js';
export { openDataVersionProbe, type DataVersionProbe } from './data-version.js';
export { decodeRunChangeCursor, encodeRunChangeCursor, MALFORMED_RUN_CHANGE_CURSOR } from './run-change-cursor.js';
export type { RunChangeHead, RunChangeRow } from './run-change-log.js';
export { QUEUE_STATUSES, RUN_STATUSES, type WorkflowRunCounts } from './run-counts.js';
export type { LeaseExpiryMark, LeaseExpiryRequest, LeaseExpiryRow } from './lease-expiries.js';
export {
  PI_WORKFLOWS_APPLICATION_ID,
  PI_WORKFLOWS_SCHEMA_NAME,
  PI_WORKFLOWS_SCHEMA_VERSIONS,
  PI_WORKFLOWS_WRITTEN_LAYOUTS,
  PI_WORKFLOWS_WRITTEN_LAYOUTS_TEXT,
  describeLayout,
  headerApplicationId,
  type WrittenPiWorkflowsLayout,
  type OwnStateFile,
  type PiWorkflowsStateFile,
  type StateFile,
} from './layout/state-file.js';
export { READ_SIDE_COLUMNS, VERSION_DEPENDENT_COLUMNS, WRITE_SIDE_COLUMNS } from './layout/read-side-schema.js';
export { describeStateFile, type FileDescription, type PiWorkflowsFileDescription } from './layout/index.js';
export { ReplicaFollower, type ReplicaFileState, type ReplicaFollowerOptions } from './replica-follower.js';
export {
  MAX_PAGE_ITEMS,
  NEWEST_PAGES,
  positionOf,
  type BlobRef,
  type DisplayControl,
  type DisplayStatus,
  type Page,
  type PageRequest,
  type PlannedPage,
  type PlannedRunView,
  type RunDefinition,
  type RunDefinitionNode,
  type RunDisplay,
  type RunFollowUp,
  type RunHumanDecision,
  type RunInteractiveRequest,
  type RunSession,
  type RunSettingsScope,
  type RunSourceRow,
  type RunState,
  type RunStep,
  type RunUpdate,
  type RunViewHead,
  type RunViewList,
  type RunViewListItems,
  type RunViewPlan,
  type RunWorkflowMessage,
  type RunWorkflowTurn,
  type SessionEntryContent,
  type SessionEntryItem,
  type SessionEventItem,
  type TakenTransition,
  type TraceEvent,
  type ValueRef,
  type ViewListChanges,
  type ViewPositions,
} from './run-view/index.js';
