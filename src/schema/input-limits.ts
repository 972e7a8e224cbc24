import { ValidationError } from './errors.js';

/** Longest accepted id, name, ref or token, in characters. */
export const MAX_TEXT_LENGTH = 4_096;
/** Longest accepted free text (error messages, no-progress details), in characters. */
export const MAX_LONG_TEXT_LENGTH = 65_536;
/** Deepest accepted nesting of a JSON input value. */
export const MAX_JSON_DEPTH = 64;
/** Largest accepted JSON input value, in UTF-8 bytes of its JSON text. */
export const MAX_JSON_BYTES = 1_048_576;

/**
 * Refuses an oversized string input.
 *
 * @throws ValidationError `<field> must be at most <max> characters`
 */
export function assertText(value: string | null | undefined, field: string, max = MAX_TEXT_LENGTH): void {
  if (typeof value === 'string' && value.length > max) {
    throw new ValidationError(`${field} must be at most ${max} characters`, field);
  }
}

/**
 * Refuses a JSON input value nested deeper than {@link MAX_JSON_DEPTH} or larger than
 * {@link MAX_JSON_BYTES}. Iterative, so a hostile depth cannot overflow the stack.
 *
 * @throws ValidationError `<field> is nested deeper than 64 levels`, `<field> is larger than 1048576 bytes`
 */
export function assertJson(value: unknown, field: string): void {
  if (value === undefined || value === null) return;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_JSON_DEPTH) throw new ValidationError(`${field} is nested deeper than ${MAX_JSON_DEPTH} levels`, field);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  if (Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') > MAX_JSON_BYTES) {
    throw new ValidationError(`${field} is larger than ${MAX_JSON_BYTES} bytes`, field);
  }
}
