import type { StandardSchemaV1 } from '@pothos/plugin-validation';
import { z } from 'zod';
import { ValidationError } from './errors.js';

/**
 * The one input-validation layer: the limits of mutation inputs, declared per
 * input type as `validate: limitedInput({ field: limitedText(), … })` (fields in the type's
 * definition order, a nested input object's limits in place) and checked by
 * `@pothos/plugin-validation` before the resolver runs; {@link inputValidationError} turns the
 * first failure into the `ValidationError` member of the mutation's result union (the errors
 * plugin catches it: `errors.unsafelyHandleInputErrors` in builder.ts). Nothing reaches the
 * store, so nothing is written.
 *
 * One schema per input object rather than one per field: the plugin's
 * per-field bookkeeping (paths, closures, a result per field) cost a mutation about as much CPU
 * as its variable coercion. The first failure reported is the same: the first limited field in
 * definition order whose value fails, a nested input's fields at the nested field's place.
 *
 * Because the check runs before the resolver, a caller that may not mutate (read scope,
 * read-only server) and sends an oversized value gets ValidationError, not ForbiddenError.
 */

/** Longest accepted id, name, ref or token, in characters. */
export const MAX_TEXT_LENGTH = 4_096;
/** Longest accepted free text (error messages, no-progress details), in characters. */
export const MAX_LONG_TEXT_LENGTH = 65_536;
/** Deepest accepted nesting of a JSON input value. */
export const MAX_JSON_DEPTH = 64;
/** Largest accepted JSON input value, in UTF-8 bytes of its JSON text. */
export const MAX_JSON_BYTES = 1_048_576;

/**
 * A string input of at most `max` characters, for a {@link limitedInput} shape. A null or
 * absent value is not checked.
 *
 * @returns a zod schema whose issue reads `must be at most <max> characters`
 */
export function limitedText(max = MAX_TEXT_LENGTH) {
  return z
    .string()
    .max(max, { error: `must be at most ${max} characters` })
    .nullish();
}

/**
 * Most UTF-8 bytes one UTF-16 code unit of a string can take in JSON text: a control character
 * escaped as `\u001f`; every other unit takes at most 3 (a surrogate pair, 2 units, takes 4).
 */
const MAX_BYTES_PER_CODE_UNIT = 6;
/** Most characters `JSON.stringify` writes for a number (`-1.2345678901234567e-308`), a boolean or null. */
const MAX_SCALAR_BYTES = 24;

/**
 * What is wrong with a JSON input value, or null: nested deeper than {@link MAX_JSON_DEPTH} or
 * larger than {@link MAX_JSON_BYTES}. Iterative, so a hostile depth cannot overflow the stack.
 *
 * The walk that checks the depth also adds up a bound on the size of the value's JSON text
 * (strings and keys at {@link MAX_BYTES_PER_CODE_UNIT} bytes per code unit, numbers at
 * {@link MAX_SCALAR_BYTES}, brackets, colons and commas); only a value whose bound passes the
 * limit is serialised to measure it exactly (the common small value is not
 * serialised a second time before the store does).
 */
function jsonProblem(value: unknown): string | null {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  let bound = 0;
  while (values.length > 0) {
    const item = values.pop();
    const depth = depths.pop() as number;
    if (typeof item === 'string') {
      bound += 2 + MAX_BYTES_PER_CODE_UNIT * item.length;
      continue;
    }
    if (typeof item !== 'object' || item === null) {
      bound += MAX_SCALAR_BYTES;
      continue;
    }
    if (depth > MAX_JSON_DEPTH) return `is nested deeper than ${MAX_JSON_DEPTH} levels`;
    bound += 2;
    if (Array.isArray(item)) {
      for (const child of item) {
        bound += 1;
        values.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key of Object.keys(item)) {
      bound += 4 + MAX_BYTES_PER_CODE_UNIT * key.length;
      values.push((item as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  if (bound > MAX_JSON_BYTES && Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') > MAX_JSON_BYTES) return `is larger than ${MAX_JSON_BYTES} bytes`;
  return null;
}

/**
 * A JSON input value within {@link MAX_JSON_DEPTH} and {@link MAX_JSON_BYTES}, for a
 * {@link limitedInput} shape; issues read `is nested deeper than 64 levels`, `is larger than
 * 1048576 bytes`. A null or absent value passes.
 */
export const limitedJson = z
  .unknown()
  .superRefine((value, context) => {
    const problem = jsonProblem(value);
    if (problem !== null) context.addIssue({ code: 'custom', message: problem });
  })
  .optional();

/**
 * The limits of an input object type, its `validate` option: `shape` names the limited fields
 * in the type's definition order ({@link limitedText}, {@link limitedJson}, or a nested input
 * object's `limitedInput(…).nullish()`); other fields pass untouched. Issues carry the path
 * inside the object (`claim.runnerId`), in shape order.
 *
 * @returns a zod object schema that keeps the fields it does not name
 */
export function limitedInput<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.looseObject(shape);
}

/**
 * The plugin's `validationError` hook: the first issue as a `ValidationError`.
 *
 * @param failure the issues; each path starts with the argument name (`input`), which the field
 *   name leaves out (`input.claim.runnerId` → `claim.runnerId`)
 * @returns ValidationError `<field> <issue>`, e.g. `runId must be at most 4096 characters`,
 *   with `field` set
 */
export function inputValidationError(failure: StandardSchemaV1.FailureResult): ValidationError {
  const issue = failure.issues[0];
  const path = (issue?.path ?? []).slice(1).map((segment) => String(typeof segment === 'object' ? segment.key : segment));
  const field = path.join('.');
  return new ValidationError(`${field} ${issue?.message ?? 'is invalid'}`, field === '' ? null : field);
}
