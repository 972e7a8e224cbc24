import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { getRow, hasTables, type Row } from './connection.js';
import { countList, readPage, type ListQuery, type Page, type PageRequest } from './pages.js';
import { decodeBlob, refColumns, refOf, type BlobRef } from './run-blobs.js';

/** A request a run asks its origin Pi session (`interactive_requests`; position = index by creation). */
export interface RunInteractiveRequest {
  position: number;
  requestId: string;
  attemptId: string;
  targetSessionId: string;
  /** `agent`, `assistant` or `decision`. */
  kind: string;
  /** The answer contract (JSON). */
  contract: BlobRef;
  revision: number;
  /** `pending`, `settled` or `cancelled`. */
  status: string;
  unproductiveTurnEnds: number;
  acceptedSubmissionId: string | null;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  settledAt: number | null;
  consumedAt: number | null;
}

/** An answer submitted to an interactive request (`interactive_submissions`; position = index by submission). */
export interface RunInteractiveSubmission {
  position: number;
  submissionId: string;
  requestId: string;
  idempotencyKey: string;
  requestRevision: number;
  payload: BlobRef;
  /** `validating`, `accepted` or `rejected`. */
  outcome: string;
  receipt: BlobRef | null;
  /** Epoch ms. */
  submittedAt: number;
}

/** A decision a run asks a person (`human_decisions` with its resolution; position = index by creation). */
export interface RunHumanDecision {
  position: number;
  decisionId: string;
  attemptId: string;
  audience: string;
  title: string;
  subject: BlobRef;
  presentation: BlobRef;
  choices: BlobRef;
  defaultResponse: BlobRef | null;
  /** The whole request (JSON). */
  request: BlobRef;
  /** `sha256:` + hex. */
  requestDigest: string;
  presentationRevision: number;
  /** Epoch ms. */
  deadlineAt: number | null;
  createdAt: number;
  resolution: {
    /** `accepted`, `cancelled`, … */
    outcome: string;
    provenance: string;
    response: BlobRef | null;
    reason: string | null;
    channel: string | null;
    actorId: string | null;
    /** Epoch ms. */
    resolvedAt: number;
  } | null;
}

/** A candidate answer to a human decision (`human_decision_submissions`; position = index by submission). */
export interface RunHumanDecisionSubmission {
  position: number;
  attemptId: string;
  source: string;
  actorId: string | null;
  channel: string | null;
  candidate: BlobRef;
  outcome: string;
  result: BlobRef | null;
  /** Epoch ms. */
  submittedAt: number;
}

/**
 * The accepted human decision a continuation run was started after (pi's
 * `state.humanDecision`, `pi-workflows.human-decision-receipt.v1`); times are ISO text as pi
 * stores them inside the receipt.
 */
export interface HumanDecisionReceipt {
  schema: 'pi-workflows.human-decision-receipt.v1';
  decisionId: string;
  requestDigest: string;
  nodeId: string;
  response: JsonValue;
  provenance: 'human' | 'timeout';
  acceptedAt: string;
  answerDigest: string;
  subjectDigest: string;
  presentationDigest: string;
  revision: number;
}

function requestsQuery(runId: string): ListQuery<RunInteractiveRequest> {
  return {
    tables: ['interactive_requests'],
    sql: `SELECT row_number() OVER (ORDER BY created_at, request_id) - 1 AS pos, request_id AS requestId, attempt_id AS attemptId,
        target_session_id AS targetSessionId, kind, revision, status, unproductive_turn_ends AS unproductiveTurnEnds,
        accepted_submission_id AS acceptedSubmissionId, created_at AS createdAt, updated_at AS updatedAt,
        settled_at AS settledAt, consumed_at AS consumedAt, ${refColumns('contract_hash', 'contract')}
      FROM interactive_requests WHERE run_id = @runId`,
    params: { runId },
    map: (row: Row) => ({
      position: Number(row.pos),
      requestId: String(row.requestId),
      attemptId: String(row.attemptId),
      targetSessionId: String(row.targetSessionId),
      kind: String(row.kind),
      contract: refOf(row, 'contract') as BlobRef,
      revision: Number(row.revision),
      status: String(row.status),
      unproductiveTurnEnds: Number(row.unproductiveTurnEnds),
      acceptedSubmissionId: (row.acceptedSubmissionId as string | null) ?? null,
      createdAt: Number(row.createdAt),
      updatedAt: Number(row.updatedAt),
      settledAt: (row.settledAt as number | null) ?? null,
      consumedAt: (row.consumedAt as number | null) ?? null,
    }),
  };
}

/**
 * A page of the run's interactive requests, pending or not.
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunInteractiveRequests(connection: SqliteDatabase, runId: string, request: PageRequest = {}): Page<RunInteractiveRequest> {
  return readPage(connection, requestsQuery(runId), request);
}

/** The number of the run's interactive requests. */
export function countRunInteractiveRequests(connection: SqliteDatabase, runId: string): number {
  return countList(connection, requestsQuery(runId));
}

/** The run's pending interactive request (pi allows one open attempt per run), or null. */
export function readRunPendingRequest(connection: SqliteDatabase, runId: string): RunInteractiveRequest | null {
  const query = requestsQuery(runId);
  if (!hasTables(connection, ...query.tables)) return null;
  const row = getRow(connection, `WITH list AS (${query.sql}) SELECT * FROM list WHERE status = 'pending' ORDER BY pos DESC LIMIT 1`, query.params);
  return row === undefined ? null : query.map(row);
}

/**
 * A page of the answers submitted to one of the run's interactive requests (empty when the
 * request is not the run's).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunRequestSubmissions(
  connection: SqliteDatabase,
  runId: string,
  requestId: string,
  request: PageRequest = {},
): Page<RunInteractiveSubmission> {
  return readPage(
    connection,
    {
      tables: ['interactive_requests', 'interactive_submissions'],
      sql: `SELECT row_number() OVER (ORDER BY s.submitted_at, s.submission_id) - 1 AS pos, s.submission_id AS submissionId,
          s.request_id AS requestId, s.idempotency_key AS idempotencyKey, s.request_revision AS requestRevision, s.outcome,
          s.submitted_at AS submittedAt, ${refColumns('s.payload_hash', 'payload')}, ${refColumns('s.receipt_hash', 'receipt')}
        FROM interactive_submissions s JOIN interactive_requests r ON r.request_id = s.request_id
        WHERE s.request_id = @requestId AND r.run_id = @runId`,
      params: { runId, requestId },
      map: (row: Row) => ({
        position: Number(row.pos),
        submissionId: String(row.submissionId),
        requestId: String(row.requestId),
        idempotencyKey: String(row.idempotencyKey),
        requestRevision: Number(row.requestRevision),
        payload: refOf(row, 'payload') as BlobRef,
        outcome: String(row.outcome),
        receipt: refOf(row, 'receipt'),
        submittedAt: Number(row.submittedAt),
      }),
    },
    request,
  );
}

function decisionsQuery(connection: SqliteDatabase, runId: string): ListQuery<RunHumanDecision> {
  const resolved = hasTables(connection, 'human_decision_resolutions');
  const resolution = resolved
    ? `x.outcome AS resolutionOutcome, x.provenance AS resolutionProvenance, x.reason AS resolutionReason, x.channel AS resolutionChannel,
       x.actor_id AS resolutionActorId, x.resolved_at AS resolvedAt, ${refColumns('x.response_hash', 'response')}`
    : `NULL AS resolutionOutcome, ${refColumns('NULL', 'response')}`;
  return {
    tables: ['human_decisions'],
    sql: `SELECT row_number() OVER (ORDER BY d.created_at, d.decision_id) - 1 AS pos, d.decision_id AS decisionId, d.attempt_id AS attemptId,
        d.audience, d.title, d.request_digest AS requestDigest, d.presentation_revision AS presentationRevision,
        d.deadline_at AS deadlineAt, d.created_at AS createdAt,
        ${refColumns('d.subject_hash', 'subject')}, ${refColumns('d.presentation_hash', 'presentation')}, ${refColumns('d.choices_hash', 'choices')},
        ${refColumns('d.default_response_hash', 'defaultResponse')}, ${refColumns('d.request_hash', 'request')}, ${resolution}
      FROM human_decisions d ${resolved ? 'LEFT JOIN human_decision_resolutions x ON x.decision_id = d.decision_id' : ''}
      WHERE d.run_id = @runId`,
    params: { runId },
    map: (row: Row) => ({
      position: Number(row.pos),
      decisionId: String(row.decisionId),
      attemptId: String(row.attemptId),
      audience: String(row.audience),
      title: String(row.title),
      subject: refOf(row, 'subject') as BlobRef,
      presentation: refOf(row, 'presentation') as BlobRef,
      choices: refOf(row, 'choices') as BlobRef,
      defaultResponse: refOf(row, 'defaultResponse'),
      request: refOf(row, 'request') as BlobRef,
      requestDigest: `sha256:${(row.requestDigest as Buffer).toString('hex')}`,
      presentationRevision: Number(row.presentationRevision),
      deadlineAt: (row.deadlineAt as number | null) ?? null,
      createdAt: Number(row.createdAt),
      resolution:
        typeof row.resolutionOutcome === 'string'
          ? {
              outcome: row.resolutionOutcome,
              provenance: String(row.resolutionProvenance),
              response: refOf(row, 'response'),
              reason: (row.resolutionReason as string | null) ?? null,
              channel: (row.resolutionChannel as string | null) ?? null,
              actorId: (row.resolutionActorId as string | null) ?? null,
              resolvedAt: Number(row.resolvedAt),
            }
          : null,
    }),
  };
}

/**
 * A page of the human decisions the run asked (with their resolutions).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunHumanDecisions(connection: SqliteDatabase, runId: string, request: PageRequest = {}): Page<RunHumanDecision> {
  return readPage(connection, decisionsQuery(connection, runId), request);
}

/** The number of human decisions the run asked. */
export function countRunHumanDecisions(connection: SqliteDatabase, runId: string): number {
  return countList(connection, decisionsQuery(connection, runId));
}

/**
 * A page of the candidate answers to one of the run's human decisions (empty when the
 * decision is not the run's).
 *
 * @throws StoreError(validation) for a malformed request
 */
export function readRunDecisionSubmissions(
  connection: SqliteDatabase,
  runId: string,
  decisionId: string,
  request: PageRequest = {},
): Page<RunHumanDecisionSubmission> {
  return readPage(
    connection,
    {
      tables: ['human_decisions', 'human_decision_submissions'],
      sql: `SELECT row_number() OVER (ORDER BY s.submitted_at, s.attempt_id) - 1 AS pos, s.attempt_id AS attemptId, s.source,
          s.actor_id AS actorId, s.channel, s.outcome, s.submitted_at AS submittedAt,
          ${refColumns('s.candidate_hash', 'candidate')}, ${refColumns('s.result_hash', 'result')}
        FROM human_decision_submissions s JOIN human_decisions d ON d.decision_id = s.decision_id
        WHERE s.decision_id = @decisionId AND d.run_id = @runId`,
      params: { runId, decisionId },
      map: (row: Row) => ({
        position: Number(row.pos),
        attemptId: String(row.attemptId),
        source: String(row.source),
        actorId: (row.actorId as string | null) ?? null,
        channel: (row.channel as string | null) ?? null,
        candidate: refOf(row, 'candidate') as BlobRef,
        outcome: String(row.outcome),
        result: refOf(row, 'result'),
        submittedAt: Number(row.submittedAt),
      }),
    },
    request,
  );
}

function jsonBlob(connection: SqliteDatabase, hash: Buffer): JsonValue {
  const blob = getRow<{ mediaType: string; content: Buffer }>(connection, 'SELECT media_type AS mediaType, content FROM blobs WHERE blob_hash = ?', [hash]);
  return blob === undefined ? null : decodeBlob(blob.mediaType, blob.content);
}

/**
 * The receipt of the accepted human decision the run continues after (pi's
 * `readHumanDecisionReceipt`: `continuations` of this continuation run, its decision and an
 * `accepted` resolution; fields from the decision's request and response blobs), or null.
 *
 * @throws StoreError(integrity) `Human decision receipt is invalid for run <runId>` (pi's text)
 */
export function readRunDecisionReceipt(connection: SqliteDatabase, runId: string): HumanDecisionReceipt | null {
  if (!hasTables(connection, 'continuations', 'human_decisions', 'human_decision_resolutions')) return null;
  const row = getRow<{ requestHash: Buffer; responseHash: Buffer | null }>(
    connection,
    `SELECT d.request_hash AS requestHash, r.response_hash AS responseHash
     FROM continuations c JOIN human_decisions d ON d.decision_id = c.decision_id
     JOIN human_decision_resolutions r ON r.decision_id = c.decision_id
     WHERE c.continuation_run_id = ? AND r.outcome = 'accepted'`,
    [runId],
  );
  if (row === undefined || row.responseHash === null) return null;
  const request = jsonBlob(connection, row.requestHash);
  const decision = jsonBlob(connection, row.responseHash);
  const text = (value: JsonValue, key: string): string | undefined => {
    const field = typeof value === 'object' && value !== null && !Array.isArray(value) ? value[key] : undefined;
    return typeof field === 'string' ? field : undefined;
  };
  const response = typeof decision === 'object' && decision !== null && !Array.isArray(decision) ? decision : {};
  const decisionId = text(request, 'decisionId');
  const requestDigest = text(request, 'requestDigest');
  const nodeId = text(request, 'nodeId');
  const provenance = text(decision, 'provenance');
  const acceptedAt = text(decision, 'acceptedAt');
  const answerDigest = text(decision, 'answerDigest');
  const subjectDigest = text(decision, 'subjectDigest');
  const presentationDigest = text(decision, 'presentationDigest');
  if (
    decisionId === undefined ||
    requestDigest === undefined ||
    nodeId === undefined ||
    provenance === undefined ||
    acceptedAt === undefined ||
    answerDigest === undefined ||
    subjectDigest === undefined ||
    presentationDigest === undefined ||
    typeof response.revision !== 'number' ||
    response.response === undefined
  ) {
    throw new StoreError('integrity', `Human decision receipt is invalid for run ${runId}`);
  }
  return {
    schema: 'pi-workflows.human-decision-receipt.v1',
    decisionId,
    requestDigest,
    nodeId,
    response: response.response,
    provenance: provenance === 'timeout' ? 'timeout' : 'human',
    acceptedAt,
    answerDigest,
    subjectDigest,
    presentationDigest,
    revision: response.revision,
  };
}
