import { builder } from '../builder.js';
import {
  type ApiError,
  type ApiErrorClass,
  ClaimLostError,
  ConflictError,
  ForbiddenError,
  LineageError,
  NotFoundError,
  RestartRejectedError,
  ValidationError,
} from '../errors.js';

/**
 * The `Error` interface and its seven implementations, one per error class of `../errors.ts`
 * (docs/GRAPHQL-CONTRACT.md "Typed errors"). They are kept in one file: each is the same three lines made from
 * its class. Each mutation lists, next to it in its family's file, the ones its result union offers.
 */
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
