import { describeStateFile, isStoreError, type StateFile, type StoreErrorKind } from '../store/index.js';
import type { GraphQLContext } from './context-types.js';
import { startStoreWriteSpan } from './tracing.js';

/** Base of every typed mutation error (docs/GRAPHQL-CONTRACT.md "Typed errors"): a stable `code` and the store's message. */
export abstract class ApiError extends Error {
  /** Stable machine value, e.g. `NOT_FOUND`. */
  abstract readonly code: string;
}

/** A named run or parent does not exist (`NOT_FOUND`). */
export class NotFoundError extends ApiError {
  readonly code = 'NOT_FOUND';
}
/** A lineage rule of docs/STORE-RULES.md failed (`LINEAGE_INVALID`). */
export class LineageError extends ApiError {
  readonly code = 'LINEAGE_INVALID';
}
/** Already reserved with other parameters, a preparation conflict, a concurrent change (`CONFLICT`). */
export class ConflictError extends ApiError {
  readonly code = 'CONFLICT';
}
/** The claim token is not the live claim of the run (`CLAIM_LOST`). */
export class ClaimLostError extends ApiError {
  readonly code = 'CLAIM_LOST';
}
/** Restart limit, cancelled or headless run, repeated terminal outcome (`RESTART_REJECTED`). */
export class RestartRejectedError extends ApiError {
  readonly code = 'RESTART_REJECTED';
}
/** Malformed input (`INVALID_INPUT`); `field` names the input field when known. */
export class ValidationError extends ApiError {
  readonly code = 'INVALID_INPUT';
  /** The offending input field, or null. */
  readonly field: string | null;
  constructor(message: string, field?: string | null) {
    super(message);
    this.field = field ?? null;
  }
}
/** Another session's run, a read-only server, or a caller with the read scope only (`FORBIDDEN`). */
export class ForbiddenError extends ApiError {
  readonly code = 'FORBIDDEN';
}

/** Every typed error class, for the errors plugin's `types`. */
export const ALL_ERROR_TYPES = [NotFoundError, LineageError, ConflictError, ClaimLostError, RestartRejectedError, ValidationError, ForbiddenError] as const;

/** One typed error class. */
export type ApiErrorClass = (typeof ALL_ERROR_TYPES)[number];

/**
 * The errors-plugin options of a mutation: its result union
 * `<Mutation>Result` (first letter upper case) lists exactly the typed errors it can return, so
 * a client switches only on errors that can happen. A store error of another kind would be a
 * bug; it is not in the union, so the server masks it and logs it.
 *
 * @param mutation the mutation field's name, e.g. `claimWorkflowRun`
 * @param types the error classes it can return
 * @param description the union's description: the success type, then each error and when
 */
export function mutationErrors(mutation: string, types: readonly ApiErrorClass[], description: string) {
  const name = `${mutation[0]?.toUpperCase()}${mutation.slice(1)}Result`;
  return { types: [...types], directResult: true as const, union: { name, description } };
}

const KIND_TO_ERROR: Record<Exclude<StoreErrorKind, 'integrity'>, (message: string, field?: string) => ApiError> = {
  validation: (message, field) => new ValidationError(message, field),
  not_found: (message) => new NotFoundError(message),
  lineage: (message) => new LineageError(message),
  conflict: (message) => new ConflictError(message),
  claim_lost: (message) => new ClaimLostError(message),
  restart_rejected: (message) => new RestartRejectedError(message),
  forbidden: (message) => new ForbiddenError(message),
};

/**
 * Maps a store failure to its typed API error (docs/STORE-RULES.md §13.10), message unchanged.
 * Integrity errors and anything unexpected are rethrown as they are, so the server masks them.
 */
export function toApiError(error: unknown): unknown {
  if (!isStoreError(error) || error.kind === 'integrity') return error;
  return KIND_TO_ERROR[error.kind](error.message, error.field);
}

/** The refusal of a mutation to a caller with the read scope. */
export const READ_SCOPE_MESSAGE = 'This token has the read scope only; mutations need the write scope';

/**
 * The `ForbiddenError` text every mutation of a read-only server answers (docs/GRAPHQL-CONTRACT.md "Access"):
 * `The server is read-only`; for a pi-workflows state file of a layout this server does not
 * write, the reason naming the file's schema digest and app version and what it writes
 * (docs/PI-WORKFLOWS-FILES.md §2), e.g. `The server is read-only: the database is a pi-workflows
 * state file and its unlisted layout (schema digest 1f2e3d4c5b6a…, app version 0.14.0) is not one
 * this server writes (it writes the layout of pi-workflows 0.16.1, 0.16.2: schema digest
 * 0469f429aad9…)`.
 *
 * @param file the kind of database file the server opened
 */
export function readOnlyMessage(file: StateFile): string {
  // Only a pi-workflows state file has a write refusal (its layout): the store's description says it.
  const { writeRefusal } = describeStateFile(file);
  return writeRefusal !== null ? `The server is read-only: the database is a pi-workflows state file and ${writeRefusal}` : 'The server is read-only';
}

/**
 * Runs a store call for a mutation: refuses a caller without the write scope and any caller on
 * a read-only server, runs `call` in one write transaction taken without blocking the event
 * loop (`store.writeAsync`: while another process holds the write lock, only
 * the writes wait), maps store errors to typed errors. Use in every mutation resolver.
 *
 * @param context the request's `scope`; `readOnly`: null when the server allows mutations, else
 *   the refusal text (see {@link readOnlyMessage}); `store`
 * @returns a promise of what `call` returns
 * @throws (rejects) ForbiddenError {@link READ_SCOPE_MESSAGE} when the scope is `read`;
 *   ForbiddenError with the `readOnly` text; typed errors from the store; `SQLITE_BUSY`
 *   (masked) when the write lock stayed taken past the store's deadline
 */
export async function runMutation<T>(context: Pick<GraphQLContext, 'scope' | 'readOnly' | 'store'>, call: () => T): Promise<T> {
  if (context.scope !== 'write') throw new ForbiddenError(READ_SCOPE_MESSAGE);
  if (context.readOnly !== null) throw new ForbiddenError(context.readOnly);
  // With tracing on (docs/TRACING.md), the write transaction is a `pi_workflows.store.write` span with the run id.
  const span = startStoreWriteSpan(context);
  try {
    const result = await context.store.writeAsync(call);
    span?.done(result);
    return result;
  } catch (error) {
    const mapped = toApiError(error);
    span?.failed(mapped);
    throw mapped;
  }
}
