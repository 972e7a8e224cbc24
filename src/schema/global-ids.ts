import { badUserInput, quotedPrefix } from './bad-user-input.js';

/** Longest accepted global id, in characters: longer ids are malformed. */
export const MAX_GLOBAL_ID_LENGTH = 1_024;

/** The object types with a global id (`Node` implementations). */
export const NODE_TYPENAMES: readonly string[] = ['WorkflowRun'];

/** Standard base64 with padding, as `WorkflowRun.id` is encoded (Relay global ids via Pothos). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes a Relay global id (`base64("<Type>:<id>")`) with one rule for every malformed id:
 * longer than {@link MAX_GLOBAL_ID_LENGTH}, not base64, not `<Type>:<id>`
 * with both parts non-empty and valid UTF-8, or a type that has no global ids. The error
 * quotes at most a short prefix of the id. A well-formed id of a known type decodes even when
 * no object has it (`node` then answers null).
 *
 * @returns the type name and the type's own id (for `WorkflowRun`, the run id)
 * @throws GraphQLError(BAD_USER_INPUT) `Invalid global ID "<prefix>": <reason>`
 */
export function decodeGlobalId(globalId: string): { typename: string; id: string } {
  const refuse = (reason: string) => badUserInput(`Invalid global ID "${quotedPrefix(globalId)}": ${reason}`);
  if (globalId.length > MAX_GLOBAL_ID_LENGTH) throw refuse(`longer than ${MAX_GLOBAL_ID_LENGTH} characters`);
  if (!BASE64.test(globalId)) throw refuse('not base64');
  const bytes = Buffer.from(globalId, 'base64');
  const text = bytes.toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1 || !Buffer.from(text, 'utf8').equals(bytes)) {
    throw refuse('not the base64 of <Type>:<id>');
  }
  const typename = text.slice(0, colon);
  if (!NODE_TYPENAMES.includes(typename)) throw refuse(`not an id of a known type (${NODE_TYPENAMES.join(', ')})`);
  return { typename, id: text.slice(colon + 1) };
}
