import { isStoreError, type StateFile, type StoreErrorKind } from '../store/index.js';
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';

/** Base of every typed mutation error (API.md "Typed errors"): a stable `code` and the store's message. */
export abstract class ApiError extends Error {
  /** Stable machine value, e.g. `NOT_FOUND`. */
  abstract readonly code: string;
}

/** A named run or parent does not exist (`NOT_FOUND`). */
export class NotFoundError extends ApiError {
  readonly code = 'NOT_FOUND';
}
/** A lineage rule of STORE.md failed (`LINEAGE_INVALID`). */
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
export const ALL_ERROR_TYPES = [
  NotFoundError,
  LineageError,
  ConflictError,
  ClaimLostError,
  RestartRejectedError,
  ValidationError,
  ForbiddenError,
] as const;

/** One typed error class. */
export type ApiErrorClass = (typeof ALL_ERROR_TYPES)[number];

/**
 * The typed errors each mutation can return, and when (issue 11 item 5): its result union
 * lists exactly these, so a client switches only on errors that can happen. A store error of
 * another kind would be a bug; it is not in the union, so the server masks it and logs it.
 */
export const MUTATION_ERRORS = {
  reserveWorkflowRun: {
    types: [NotFoundError, LineageError, ConflictError, RestartRejectedError, ValidationError, ForbiddenError],
    description:
      'ReserveWorkflowRunSuccess, or: NotFoundError (the parent does not exist), LineageError (a lineage rule), ConflictError ' +
      '(already reserved with other parameters, preparation conflict, a restart fingerprint that is not the parent\'s, the claim ' +
      'could not be taken, the session already has an active run), RestartRejectedError (restart policy), ValidationError ' +
      '(malformed input), ForbiddenError (read-only server, or a run that may not be restarted).',
  },
  restartWorkflowRun: {
    types: [NotFoundError, LineageError, ConflictError, RestartRejectedError, ValidationError, ForbiddenError],
    description:
      'RestartWorkflowRunSuccess, or: NotFoundError (no such run), ForbiddenError (not an interactive run of this session, or ' +
      'read-only server), RestartRejectedError (cancelled run, restart limit, repeated terminal outcome), LineageError (run not ' +
      'terminal, malformed fingerprint), ConflictError (fingerprint of another outcome, the claim could not be taken), ' +
      'ValidationError (malformed input).',
  },
  claimWorkflowRun: {
    types: [NotFoundError, ConflictError, ValidationError, ForbiddenError],
    description:
      'ClaimWorkflowRunSuccess (run null when nothing is eligible), or: NotFoundError (no run with that runId), ConflictError ' +
      "(the run's session already has an active run), ValidationError (malformed input, leaseMs out of range), ForbiddenError " +
      '(read-only server).',
  },
  parkWorkflowRun: {
    types: [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
    description:
      'ParkWorkflowRunSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim), ConflictError ' +
      '(a waiting run parked for no progress, a concurrent change), ValidationError (malformed input), ForbiddenError ' +
      '(read-only server).',
  },
  settleWorkflowRun: {
    types: [NotFoundError, ClaimLostError, ConflictError, ValidationError, ForbiddenError],
    description:
      'SettleWorkflowRunSuccess, or: NotFoundError (no such run), ClaimLostError (the token is not the live claim), ConflictError ' +
      '(a concurrent change), ValidationError (malformed input or output), ForbiddenError (read-only server).',
  },
} as const satisfies Record<string, { types: readonly ApiErrorClass[]; description: string }>;

/**
 * The errors-plugin options of a mutation: its own error types and its result union
 * `<Mutation>Result` (first letter upper case), described.
 */
export function mutationErrors(mutation: keyof typeof MUTATION_ERRORS) {
  const { types, description } = MUTATION_ERRORS[mutation];
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
 * Maps a store failure to its typed API error (STORE.md §13.10), message unchanged.
 * Integrity errors and anything unexpected are rethrown as they are, so the server masks them.
 */
export function toApiError(error: unknown): unknown {
  if (!isStoreError(error) || error.kind === 'integrity') return error;
  return KIND_TO_ERROR[error.kind](error.message, error.field);
}

/** The refusal of a mutation to a caller with the read scope (issue 10.11). */
export const READ_SCOPE_MESSAGE = 'This token has the read scope only; mutations need the write scope';

/**
 * The `ForbiddenError` text every mutation of a read-only server answers (API.md "Access"):
 * `The server is read-only`, and for a pi-workflows state file (always served read-only,
 * issue 12) the reason.
 *
 * @param file the kind of database file the server opened
 */
export function readOnlyMessage(file: StateFile): string {
  return file.kind === 'pi-workflows'
    ? 'The server is read-only: the database is a pi-workflows state file, served read-only so that pi-workflows keeps accepting it'
    : 'The server is read-only';
}

/**
 * Runs a store call for a mutation: refuses a caller without the write scope and any caller on
 * a read-only server, maps store errors to typed errors. Use in every mutation resolver.
 *
 * @param context the request's `scope`; `readOnly`: null when the server allows mutations, else
 *   the refusal text (see {@link readOnlyMessage})
 * @throws ForbiddenError {@link READ_SCOPE_MESSAGE} when the scope is `read` (issue 10.11);
 *   ForbiddenError with the `readOnly` text; typed errors from the store
 */
export function runMutation<T>(context: Pick<GraphQLContext, 'scope' | 'readOnly'>, call: () => T): T {
  if (context.scope !== 'write') throw new ForbiddenError(READ_SCOPE_MESSAGE);
  if (context.readOnly !== null) throw new ForbiddenError(context.readOnly);
  try {
    return call();
  } catch (error) {
    throw toApiError(error);
  }
}

const ErrorInterface = builder.interfaceRef<ApiError>('Error').implement({
  description: 'Every typed mutation error implements Error: a stable code and a human message.',
  fields: (t) => ({
    message: t.exposeString('message', { description: "The store's exact error text." }),
    code: t.exposeString('code', { description: 'Stable machine value.' }),
  }),
});

function errorObject(cls: ApiErrorClass, description: string): void {
  builder.objectType(cls, {
    name: cls.name,
    description,
    interfaces: [ErrorInterface],
    isTypeOf: (value) => value instanceof cls,
  });
}

errorObject(NotFoundError, 'NOT_FOUND: a named run or parent does not exist.');
errorObject(LineageError, 'LINEAGE_INVALID: a lineage rule of the store failed.');
errorObject(ConflictError, 'CONFLICT: already reserved with other parameters, a preparation conflict or a concurrent change.');
errorObject(ClaimLostError, 'CLAIM_LOST: the claim token is not the live claim of that run.');
errorObject(RestartRejectedError, 'RESTART_REJECTED: restart limit, a cancelled or headless run, or a repeated terminal outcome in the chain.');
errorObject(ForbiddenError, 'FORBIDDEN: the run belongs to another session, the server is read-only, or the token has the read scope only.');
builder.objectType(ValidationError, {
  name: 'ValidationError',
  description: 'INVALID_INPUT: malformed input (bad fingerprint, leaseMs out of range, oversized values).',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ValidationError,
  fields: (t) => ({
    field: t.exposeString('field', { nullable: true, description: 'The input field at fault, when known.' }),
  }),
});
