import { canonicalJson, normalizeJson } from './canonical-json.js';
import { isUniqueViolation } from './connection.js';
import { definitionDigest, isOlderFormDigest } from './definition-digest.js';
import { StoreError } from './errors.js';
import { claimCore } from './run-claims.js';
import { assertRestartReservationAllowed } from './restart-policy.js';
import { bumpRun, insertEvent, readLease, withActiveSessionSlot } from './run-events.js';
import {
  loadRunRow,
  requireRunRecord,
  requireRunRow,
  toRunRecords,
  TERMINAL_QUEUE_STATUSES,
  TERMINAL_RUN_STATUSES,
  type ExecutionMode,
  type LineageKind,
  type RunRow,
  type WorkflowRunRecord,
  type WorkflowSource,
  type WorkflowSourceIdentity,
} from './run-records.js';
import { assertWritable, requireProjectId, type StoreContext } from './store-context.js';
import { assertLeaseMs, assertRunId, digestBuffer, resolveNow, resourceIdFor, terminalFingerprintBuffer } from './values.js';

/** A reservation with its definition digest (docs/STORE-RULES.md §6.1); see {@link reserveWorkflowRun}. */
export interface ReserveWorkflowRunInput {
  runId: string;
  workflowName: string;
  /** The source ref given at launch (runs.workflow_ref). */
  workflowSourceRef: string;
  /** One source identity, or `{root, mounted}` (docs/STORE-RULES.md §3.10). */
  workflowSource: unknown;
  /** `sha256:`-prefixed or bare 64 hex; SHA-256 of the snapshot's canonical JSON. */
  definitionDigest: string;
  definitionSnapshot: unknown;
  /** Stored as JSON; default `null`. */
  input?: unknown;
  /** Stored as JSON; default `{}`. */
  launchOptions?: unknown;
  /**
   * The reserving runner, stored as `run_queue.affinity_runner_id` (NULL when absent or null);
   * a non-empty string. With a claim (prepare-or-adopt) the claim's runner is stored instead
   * (docs/PI-WORKFLOWS-FILES.md §8).
   */
  runnerId?: string | null;
  originSessionId: string;
  /** Default `interactive`. */
  executionMode?: ExecutionMode;
  parentRunId?: string;
  lineageKind?: LineageKind;
  restartNumber?: number;
  /** Restarts only: optional `sha256:` + 64 hex. */
  parentTerminalFingerprint?: string;
  title?: string | null;
  /** ISO-8601; default the store clock. */
  now?: string;
}

/**
 * A reservation by definition snapshot: no digest, so the store computes it and the default
 * source identity (docs/STORE-RULES.md §13.4, {@link reservationOf}) instead of the caller.
 */
export type DefinitionReservation = Omit<ReserveWorkflowRunInput, 'definitionDigest' | 'workflowSource'> & {
  definitionDigest?: undefined;
  /** Source identity; default `{kind:'file', path: workflowSourceRef, hash: <definition digest>}`. */
  workflowSource?: unknown;
};

/** What {@link reserveWorkflowRun} takes: with the definition digest, or without it ({@link DefinitionReservation}). */
export type ReservationInput = ReserveWorkflowRunInput | DefinitionReservation;

/** A claim taken together with a reservation (prepare-or-adopt). */
export interface ClaimRequest {
  runnerId: string;
  /** Chosen by the caller; only its SHA-256 is stored. */
  claimToken: string;
  /** Lease duration in ms, 1 … 86,400,000. */
  leaseMs: number;
}

/** Result of a reservation with a claim (prepare-or-adopt, docs/STORE-RULES.md §6.2). */
export interface PreparedRun {
  /** `claimed`: reserved and claimed now; `adopted`: an identical run already existed. */
  state: 'claimed' | 'adopted';
  run: WorkflowRunRecord;
}

/** Result of {@link reserveWorkflowRun}: `reserved` without a claim, else as {@link PreparedRun}. */
export interface ReservedRun {
  state: 'reserved' | 'claimed' | 'adopted';
  run: WorkflowRunRecord;
}

/**
 * A new run's lineage as pi-workflows' rules computed it (docs/STORE-RULES.md §6.1 rules 3-5): the parent row,
 * the chain root, kind, restart number and the parsed fingerprint (32 bytes, restarts only).
 */
interface Lineage {
  parent: RunRow | undefined;
  rootRunId: string;
  lineageKind: LineageKind | null;
  restartNumber: number;
  fingerprint: Buffer | null;
}

/**
 * A reservation whose syntax was checked once, at its entry ({@link checkReservation}); the
 * transaction below takes it as it is and checks nothing of it again. `restartWorkflowRun` makes
 * one from values it read from the database.
 */
export interface CheckedReservation {
  /** The reservation, its digest given or computed. */
  readonly input: ReserveWorkflowRunInput;
  /** When, epoch ms (`input.now`, else the store clock). */
  readonly now: number;
  /** `input.definitionDigest`, 32 bytes. */
  readonly digest: Buffer;
  /** The claim to take with it (prepare-or-adopt), its lease duration checked. */
  readonly claim: ClaimRequest | undefined;
}

/**
 * Completes a {@link DefinitionReservation} into the reservation input of docs/STORE-RULES.md §6.1: the
 * digest of its snapshot, and the default file source identity when none is given (§13.4).
 *
 * @throws StoreError(validation, field `definition`) as {@link definitionDigest}
 */
function reservationOf(input: DefinitionReservation): ReserveWorkflowRunInput {
  const digest = definitionDigest(input.definitionSnapshot);
  return {
    ...input,
    definitionDigest: digest,
    workflowSource: input.workflowSource ?? { kind: 'file', path: input.workflowSourceRef, hash: digest },
  };
}

/**
 * The checks of a reservation before its transaction, each once, first failure wins: the
 * definition's digest when none is given ({@link reservationOf}), writable, run id (docs/STORE-RULES.md
 * §6.1 rule 1: before the timestamp), timestamp, digest, and the claim's lease duration.
 *
 * @throws StoreError validation (`definition`, `Invalid workflow run id: <runId>`, `Invalid
 *   timestamp`, `Expected a SHA-256 digest`, the lease duration); forbidden `Controller store is read-only`
 */
function checkReservation(context: StoreContext, given: ReservationInput, claim: ClaimRequest | undefined): CheckedReservation {
  const input = given.definitionDigest === undefined ? reservationOf(given) : given;
  assertWritable(context);
  assertRunId(input.runId);
  const now = resolveNow(input.now, context.clock);
  const digest = digestBuffer(input.definitionDigest);
  if (claim !== undefined) assertLeaseMs(claim.leaseMs);
  return { input, now, digest, claim };
}

/**
 * Reserves a root run, a continuation or a restart (docs/STORE-RULES.md §6.1), with a claim reserves and
 * claims it or adopts an identical existing run (§6.2), applying every rule: pi-workflows', this
 * project's value checks, and for a restart the restart policy ({@link assertRestartReservationAllowed},
 * §13.11), in one transaction. The store's one reserve entry (`WorkflowStore.reserveWorkflowRun`).
 *
 * Without a digest (a {@link DefinitionReservation}) the store computes it and the default source
 * identity first (§13.4). Checks in order, first failure wins and nothing is written: those of
 * {@link checkReservation}; then in the transaction, an existing run (conflict without a claim,
 * adoption or `Workflow run preparation conflicts: <runId>` with one: adoption writes nothing,
 * takes no claim and runs no lineage rule); pi-workflows' lineage rules in pi-workflows' order; this
 * project's value checks (non-empty names, execution mode, lineage kind, restart number) for
 * what pi-workflows leaves open (where a pi-workflows rule decides, its text wins); the restart policy. Then
 * the blobs, definition, resource, lease, runs row, viewer row, sources, binding, queue row
 * (`queued`, or `starting` with a claim, affinity the claim's runner: docs/PI-WORKFLOWS-FILES.md
 * §8) and `run.queued` event, and the claim. A continuation of a parked parent marks the parent's
 * queue `done` and records `run.queue_done_for_continuation` (one bump revision on the parent).
 *
 * @returns `{state, run}` (docs/STORE-RULES.md §10 record): `reserved` without a claim; `claimed` (the record
 *   carries the given token) or `adopted` with one
 * @throws StoreError with the exact texts of docs/STORE-RULES.md §11 "Input" and "Reserve" (kinds
 *   validation, conflict, lineage, not_found), `Stored workflow source identity is invalid`,
 *   `Controller store is read-only` (forbidden), conflict errors for a taken slot (one active
 *   queue entry per session, one restart per parent), `Workflow run could not be claimed:
 *   <runId>` (conflict), and the restart policy's restart_rejected errors and conflict
 *   `Terminal fingerprint does not match the terminal outcome of workflow run: <parentRunId>`
 */
export function reserveWorkflowRun(context: StoreContext, input: ReservationInput, claim?: ClaimRequest): ReservedRun {
  return reserveCheckedRun(context, checkReservation(context, input, claim), 'apply');
}

/**
 * {@link reserveWorkflowRun} WITHOUT the restart policy (docs/STORE-RULES.md §13.11): only pi-workflows' rules
 * and this project's value checks, as pi-workflows reserves. Not on the store facade: for tests and
 * benchmarks that set up rows the policy would refuse (a restart of a headless parent, a foreign
 * fingerprint), never for production code.
 *
 * @returns and @throws as {@link reserveWorkflowRun}, less the restart policy's errors
 */
export function reserveWorkflowRunSkippingRestartPolicy(context: StoreContext, input: ReservationInput, claim?: ClaimRequest): ReservedRun {
  return reserveCheckedRun(context, checkReservation(context, input, claim), 'skip');
}

/**
 * The transaction of a {@link CheckedReservation} (see {@link reserveWorkflowRun}).
 *
 * @param restartPolicy `skip` only where the restart policy was applied already (the restart
 *   command, in §13.1's order) or must not be ({@link reserveWorkflowRunSkippingRestartPolicy})
 */
export function reserveCheckedRun(context: StoreContext, checked: CheckedReservation, restartPolicy: 'apply' | 'skip'): ReservedRun {
  const { input, now, claim } = checked;
  return context.database.transaction(() => {
    if (claim === undefined) {
      reserveInTransaction(context, checked, 'queued', restartPolicy);
      return { state: 'reserved' as const, run: requireRunRecord(context, input.runId, now) };
    }
    const existing = loadRunRow(context, input.runId);
    if (existing !== undefined) {
      assertPreparationCompatible(context, existing, input, checked.digest);
      return { state: 'adopted' as const, run: requireRunRecord(context, input.runId, now) };
    }
    // pi-workflows inserts the queue row already `starting`, affinity = the claiming runner
    // (docs/PI-WORKFLOWS-FILES.md §8); the claim then keeps that status.
    reserveInTransaction(context, { ...checked, input: { ...input, runnerId: claim.runnerId } }, 'starting', restartPolicy);
    const claimed = claimCore(context, input.runId, claim, now, { allowPendingInteraction: false, preserveQueueStatus: true });
    if (claimed === undefined) {
      throw new StoreError('conflict', `Workflow run could not be claimed: ${input.runId}`);
    }
    return { state: 'claimed' as const, run: claimed };
  });
}

function assertPreparationCompatible(context: StoreContext, row: RunRow, input: ReserveWorkflowRunInput, digest: Buffer): void {
  const expectedKind = input.parentRunId === undefined ? null : (input.lineageKind ?? 'continuation');
  const parent = input.parentRunId === undefined ? undefined : requireRunRow(context, input.parentRunId);
  const expectedRoot = parent?.root_run_id ?? input.runId;
  const expectedRestart = expectedKind === 'restart' ? (input.restartNumber ?? (parent?.restart_number ?? -1) + 1) : (parent?.restart_number ?? 0);
  const expectedFingerprint = input.parentTerminalFingerprint === undefined ? null : terminalFingerprintBuffer(input.parentTerminalFingerprint);
  const [record] = toRunRecords(context, [row], context.clock());
  const storedSource = record?.workflowSource;
  // A run an older build stored under the code-unit-order digest of the same definition is the
  // same definition; its default source identity then carries that stored digest as its hash
  // (docs/PI-WORKFLOWS-FILES.md §8).
  const olderForm = !row.definition_digest.equals(digest) && isOlderFormDigest(input.definitionSnapshot, digest, row.definition_digest);
  const givenSource = (): unknown => {
    const source = validWorkflowSource(input.workflowSource);
    return sourceKey(olderForm ? withDigestHash(source, digest.toString('hex'), row.definition_digest.toString('hex')) : source);
  };
  const compatible =
    row.workflow_name === input.workflowName &&
    row.workflow_ref === input.workflowSourceRef &&
    (olderForm || row.definition_digest.equals(digest)) &&
    sameJson(sourceKey(storedSource), givenSource) &&
    sameJson(record?.input, () => input.input ?? null) &&
    sameJson(record?.launchOptions, () => input.launchOptions ?? {}) &&
    row.origin_session_id === input.originSessionId &&
    row.execution_mode === (input.executionMode ?? 'interactive') &&
    row.parent_run_id === (input.parentRunId ?? null) &&
    row.root_run_id === expectedRoot &&
    row.lineage_kind === expectedKind &&
    row.restart_number === expectedRestart &&
    ((row.parent_terminal_fingerprint === null && expectedFingerprint === null) ||
      (row.parent_terminal_fingerprint !== null && expectedFingerprint !== null && row.parent_terminal_fingerprint.equals(expectedFingerprint)));
  if (!compatible) throw new StoreError('conflict', `Workflow run preparation conflicts: ${input.runId}`);
}

/** `source` with every file identity whose hash is `from` given the hash `to` instead. */
function withDigestHash(source: WorkflowSource, from: string, to: string): WorkflowSource {
  const swap = (identity: WorkflowSourceIdentity): WorkflowSourceIdentity =>
    identity.kind === 'file' && identity.hash === from ? { ...identity, hash: to } : identity;
  return { root: swap(source.root), mounted: source.mounted.map((mount) => ({ ...mount, source: swap(mount.source) })) };
}

/** A source without mount names: names are rebuilt on read, so they take no part in the comparison. */
function sourceKey(source: WorkflowSource | undefined): unknown {
  return source === undefined
    ? undefined
    : { root: source.root, mounted: source.mounted.map((mount) => ({ mountPath: mount.mountPath, source: mount.source })) };
}

/** Canonical JSON equality of a stored value and a given one; a given value that cannot be stored differs. */
function sameJson(stored: unknown, given: () => unknown): boolean {
  try {
    return canonicalJson(stored) === canonicalJson(given());
  } catch {
    return false;
  }
}

/**
 * This project's value checks of a reservation (not in pi-workflows). Called after pi-workflows'
 * lineage rules, so they decide only what pi-workflows leaves open.
 *
 * @throws StoreError(validation) `<field> must be a non-empty string`,
 *   `executionMode must be interactive or headless`, `lineageKind must be continuation or restart`,
 *   `restartNumber must be a non-negative integer`
 */
function validateInputShape(input: ReserveWorkflowRunInput): void {
  const text = (value: unknown, field: string): void => {
    if (typeof value !== 'string' || value.length === 0) {
      throw new StoreError('validation', `${field} must be a non-empty string`, field);
    }
  };
  text(input.workflowName, 'workflowName');
  text(input.workflowSourceRef, 'workflowRef');
  text(input.originSessionId, 'originSessionId');
  if (input.executionMode !== undefined && input.executionMode !== 'interactive' && input.executionMode !== 'headless') {
    throw new StoreError('validation', 'executionMode must be interactive or headless', 'executionMode');
  }
  if (input.lineageKind !== undefined && input.lineageKind !== 'continuation' && input.lineageKind !== 'restart') {
    throw new StoreError('validation', 'lineageKind must be continuation or restart', 'lineageKind');
  }
  if (input.restartNumber !== undefined && (!Number.isSafeInteger(input.restartNumber) || input.restartNumber < 0)) {
    throw new StoreError('validation', 'restartNumber must be a non-negative integer', 'restartNumber');
  }
  if (input.runnerId !== undefined && input.runnerId !== null) text(input.runnerId, 'runnerId');
}

/**
 * The reservation proper; runs inside the caller's transaction. The syntax was checked
 * ({@link checkReservation}).
 *
 * @param queueStatus the new queue row's status: `queued`, or `starting` when a claim follows
 * @param restartPolicy whether the restart policy runs, after pi-workflows' rules and
 *   {@link validateInputShape}, before the writes
 */
function reserveInTransaction(context: StoreContext, checked: CheckedReservation, queueStatus: 'queued' | 'starting', restartPolicy: 'apply' | 'skip'): void {
  const { input, now, digest } = checked;
  // 1. syntax: checked at the entry
  // 2. existing
  if (loadRunRow(context, input.runId) !== undefined) {
    throw new StoreError('conflict', `Workflow run already reserved: ${input.runId}`);
  }
  // 3-5. lineage: pi-workflows' rules in pi-workflows' order, before any check of our own
  const lineage = computeLineage(context, input, now);
  // our value checks, for what pi-workflows leaves open (their lineage writes roll back with the transaction)
  validateInputShape(input);
  if (restartPolicy === 'apply' && lineage.lineageKind === 'restart' && lineage.parent !== undefined && lineage.fingerprint !== null) {
    assertRestartReservationAllowed(context, lineage.parent, lineage.fingerprint, now);
  }
  // 6. writes
  const projectId = requireProjectId(context);
  const source = validWorkflowSource(input.workflowSource);
  const snapshotHash = context.blobs.putJson(input.definitionSnapshot, now);
  const inputHash = context.blobs.putJson(input.input === undefined ? null : input.input, now);
  const launchHash = context.blobs.putJson(input.launchOptions === undefined ? {} : input.launchOptions, now);
  context.database.run(
    `INSERT INTO workflow_definitions(definition_digest, workflow_name, definition_hash, created_at)
     VALUES (?, ?, ?, ?) ON CONFLICT(definition_digest) DO NOTHING`,
    digest,
    input.workflowName,
    snapshotHash,
    now,
  );
  const resourceId = resourceIdFor('run', input.runId);
  context.database.run(
    `INSERT INTO resources(resource_id, resource_type, aggregate_key, revision, created_at, updated_at)
     VALUES (?, 'run', ?, 1, ?, ?)`,
    resourceId,
    input.runId,
    now,
    now,
  );
  context.database.run('INSERT INTO leases(resource_id, generation) VALUES (?, 0)', resourceId);
  withRestartSlot(context, input, () =>
    context.database.run(
      `INSERT INTO runs(run_id, resource_id, project_id, parent_run_id, root_run_id, lineage_kind, restart_number,
         parent_terminal_fingerprint, definition_digest, workflow_ref, launch_options_hash, title, status, paused,
         input_hash, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?)`,
      input.runId,
      resourceId,
      projectId,
      input.parentRunId ?? null,
      lineage.rootRunId,
      lineage.lineageKind,
      lineage.restartNumber,
      lineage.fingerprint,
      digest,
      input.workflowSourceRef,
      launchHash,
      input.title ?? null,
      inputHash,
      now,
      now,
    ),
  );
  context.viewer.initialize(input.runId, now);
  insertRunSources(context, input.runId, source);
  const executionMode = input.executionMode ?? 'interactive';
  context.database.run(
    'INSERT INTO run_bindings(run_id, origin_session_id, execution_mode, created_at) VALUES (?, ?, ?, ?)',
    input.runId,
    input.originSessionId,
    executionMode,
    now,
  );
  withActiveSessionSlot(context, input.originSessionId, () =>
    context.database.run(
      `INSERT INTO run_queue(run_id, status, available_at, affinity_runner_id, origin_session_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      input.runId,
      queueStatus,
      now,
      input.runnerId ?? null,
      input.originSessionId,
      now,
      now,
    ),
  );
  insertEvent(context, resourceId, 1, 'run.queued', { type: 'session', id: input.originSessionId }, {}, now);
}

/**
 * Runs the runs insert; a second restart of one parent (unique index `runs_restart_parent_idx`)
 * becomes a clear conflict. Recognised by SQLite's constraint code and the index's own
 * predicate (the parent already has a restart child), never by the error text.
 */
function withRestartSlot(context: StoreContext, input: ReserveWorkflowRunInput, insert: () => void): void {
  try {
    insert();
  } catch (error) {
    if (isUniqueViolation(error) && input.parentRunId !== undefined && restartChildOf(context, input.parentRunId) !== undefined) {
      throw new StoreError('conflict', `Workflow run already has a restart: ${input.parentRunId}`);
    }
    throw error;
  }
}

/**
 * The restart child of `parentRunId` (at most one: unique index `runs_restart_parent_idx`), or undefined.
 *
 * @returns the child's run id
 */
export function restartChildOf(context: StoreContext, parentRunId: string): string | undefined {
  return context.database.get<{ run_id: string }>("SELECT run_id FROM runs WHERE parent_run_id = ? AND lineage_kind = 'restart'", parentRunId)?.run_id;
}

function computeLineage(context: StoreContext, input: ReserveWorkflowRunInput, now: number): Lineage {
  const lineageKind = input.parentRunId === undefined ? null : (input.lineageKind ?? 'continuation');
  if (input.parentRunId === undefined && input.lineageKind !== undefined) {
    throw new StoreError('lineage', 'A root workflow run cannot declare lineage');
  }
  if (input.parentRunId === undefined) {
    if (input.restartNumber !== undefined || input.parentTerminalFingerprint !== undefined) {
      throw new StoreError('lineage', 'A root workflow run cannot declare restart metadata');
    }
    return { parent: undefined, rootRunId: input.runId, lineageKind: null, restartNumber: 0, fingerprint: null };
  }
  const parent = loadRunRow(context, input.parentRunId);
  if (parent === undefined) throw new StoreError('not_found', `Workflow run not found: ${input.parentRunId}`);
  if (parent.origin_session_id !== input.originSessionId) {
    throw new StoreError('lineage', 'Workflow parent belongs to another Pi session');
  }
  if (lineageKind === 'restart') {
    if (!TERMINAL_RUN_STATUSES.includes(parent.run_status) || !TERMINAL_QUEUE_STATUSES.includes(parent.queue_status)) {
      throw new StoreError('lineage', 'Restart parent is not terminal');
    }
    if (input.parentTerminalFingerprint === undefined) {
      throw new StoreError('lineage', 'Restart requires the parent terminal fingerprint');
    }
    const fingerprint = terminalFingerprintBuffer(input.parentTerminalFingerprint);
    const restartNumber = input.restartNumber ?? parent.restart_number + 1;
    if (restartNumber !== parent.restart_number + 1) {
      throw new StoreError('lineage', 'Restart number does not follow its parent');
    }
    return { parent, rootRunId: parent.root_run_id, lineageKind, restartNumber, fingerprint };
  }
  if (input.parentTerminalFingerprint !== undefined || (input.restartNumber !== undefined && input.restartNumber !== parent.restart_number)) {
    throw new StoreError('lineage', 'Continuation lineage conflicts with restart metadata');
  }
  if (parent.queue_status === 'parked') {
    const lease = readLease(context, parent.resource_id);
    if (lease.owner_id !== null) throw new StoreError('lineage', 'Continuation parent still has an active owner');
    context.database.run(
      "UPDATE run_queue SET status = 'done', updated_at = ?, finished_at = ? WHERE run_id = ? AND status = 'parked'",
      now,
      now,
      parent.run_id,
    );
    bumpRun(context, parent, 'run.queue_done_for_continuation', { type: 'session', id: input.originSessionId }, { continuationRunId: input.runId }, now);
  } else if (parent.queue_status === 'done') {
    throw new StoreError('lineage', 'Continuation parent already has a reserved continuation');
  } else {
    throw new StoreError('lineage', `Continuation parent queue is ${parent.queue_status}`);
  }
  return {
    parent,
    rootRunId: parent.root_run_id,
    lineageKind: 'continuation',
    restartNumber: parent.restart_number,
    fingerprint: null,
  };
}

function isIdentity(value: unknown): value is WorkflowSourceIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const text = (key: string): boolean => typeof record[key] === 'string' && (record[key] as string).length > 0;
  if (record.kind === 'builtin') return text('id') && text('revision') && Object.keys(record).length === 3;
  if (record.kind === 'file') return text('path') && text('hash') && Object.keys(record).length === 3;
  return false;
}

/**
 * Validates a launch source (docs/STORE-RULES.md §3.10) and returns it as `{root, mounted}`.
 *
 * @throws StoreError(validation) `Stored workflow source identity is invalid`
 */
export function validWorkflowSource(value: unknown): WorkflowSource {
  if (isIdentity(value)) return { root: value, mounted: [] };
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (isIdentity(record.root) && Array.isArray(record.mounted)) {
      const mounted = record.mounted.map((mount: unknown) => {
        const entry = mount as Record<string, unknown> | null;
        if (
          typeof entry !== 'object' ||
          entry === null ||
          !Array.isArray(entry.mountPath) ||
          entry.mountPath.length === 0 ||
          !entry.mountPath.every((part) => typeof part === 'string' && part.length > 0 && !part.includes('/')) ||
          typeof entry.workflowName !== 'string' ||
          !isIdentity(entry.source)
        ) {
          throw new StoreError('validation', 'Stored workflow source identity is invalid', 'workflowSource');
        }
        return { mountPath: entry.mountPath as string[], workflowName: entry.workflowName, source: entry.source };
      });
      return normalizeJson({ root: record.root, mounted }) as unknown as WorkflowSource;
    }
  }
  throw new StoreError('validation', 'Stored workflow source identity is invalid', 'workflowSource');
}

function insertRunSources(context: StoreContext, runId: string, source: WorkflowSource): void {
  const rows: Array<[string, WorkflowSourceIdentity]> = [
    ['', source.root],
    ...source.mounted.map((mount): [string, WorkflowSourceIdentity] => [mount.mountPath.join('/'), mount.source]),
  ];
  for (const [mountPath, identity] of rows) {
    context.database.run(
      `INSERT INTO run_sources(run_id, mount_path, source_type, source_ref, source_revision) VALUES (?, ?, ?, ?, ?)`,
      runId,
      mountPath,
      identity.kind,
      identity.kind === 'builtin' ? identity.id : identity.path,
      identity.kind === 'builtin' ? identity.revision : identity.hash,
    );
  }
}
