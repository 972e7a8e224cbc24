import { StoreError } from './errors.js';

/** A JSON value as stored by the store (after canonical normalisation). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** @throws StoreError(validation) `JSON numbers must be finite` for NaN and ±Infinity */
function requireFinite(value: number): void {
  if (!Number.isFinite(value)) throw new StoreError('validation', 'JSON numbers must be finite');
}

/** @throws StoreError(validation) `Only plain objects can be stored as canonical JSON` unless `value`'s prototype is Object.prototype or null */
function requirePlainObject(value: object): void {
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) {
    throw new StoreError('validation', 'Only plain objects can be stored as canonical JSON');
  }
}

/** The error for a value JSON cannot hold (a function, symbol, bigint or undefined). */
function unsupportedJson(value: unknown): StoreError {
  return new StoreError('validation', `Unsupported JSON value type: ${typeof value}`);
}

/**
 * Normalises a value per docs/STORE-RULES.md §2.1: finite numbers only (-0 becomes 0), arrays keep order,
 * plain objects only with keys inserted in code-unit order and `undefined` values dropped (a
 * JavaScript object then enumerates its integer-like keys first: {@link sortCanonically}).
 *
 * @param value any JavaScript value
 * @returns the normalised JSON value
 * @throws StoreError(validation) `JSON numbers must be finite`,
 *   `Only plain objects can be stored as canonical JSON`, `Unsupported JSON value type: <typeof>`
 */
export function normalizeJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    requireFinite(value);
    return Object.is(value, -0) ? 0 : value;
  }
  if (Array.isArray(value)) return value.map((element) => normalizeJson(element));
  if (typeof value === 'object') {
    requirePlainObject(value);
    const result: { [key: string]: JsonValue } = {};
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record).sort(compareCodeUnits)) {
      const entry = record[key];
      if (entry === undefined) continue;
      result[key] = normalizeJson(entry);
    }
    return result;
  }
  throw unsupportedJson(value);
}

/**
 * Serialises a value as canonical JSON, as pi-workflows does (docs/PI-WORKFLOWS-FILES.md §8):
 * normalised, no whitespace, object keys in {@link sortCanonically}.
 *
 * One pass that checks and writes at once (the reservation path serialises
 * its definition, input and options on every call), equal to `JSON.stringify` of
 * {@link normalizeJson}'s result: keys sorted, then ordered as a JavaScript object orders its
 * own keys (integer-like keys such as "2" and "10" first, numerically), `undefined` members
 * dropped, -0 written as 0, and the same error for the same first offending value in that order.
 *
 * @param value any JavaScript value accepted by {@link normalizeJson}
 * @returns the canonical JSON text
 * @throws StoreError(validation) as {@link normalizeJson}
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      requireFinite(value);
      return JSON.stringify(value);
    case 'object':
      return Array.isArray(value) ? canonicalArray(value) : canonicalObject(value);
    default:
      throw unsupportedJson(value);
  }
}

/** `[…]` of the elements' canonical JSON (a hole, which `map` skips, writes nothing between its commas). */
function canonicalArray(value: readonly unknown[]): string {
  let text = '[';
  for (let index = 0; index < value.length; index += 1) {
    if (index > 0) text += ',';
    if (index in value) text += canonicalJson(value[index]);
  }
  return `${text}]`;
}

/** `{…}` of a plain object's defined members, keys in {@link sortCanonically}. */
function canonicalObject(value: object): string {
  requirePlainObject(value);
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of sortCanonically(Object.keys(record))) {
    const entry = record[key];
    if (entry === undefined) continue;
    const member = canonicalJson(entry);
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${member}`;
  }
  return `${text}}`;
}

/** Largest array index, 2^32 − 2: V8 (and the spec's OrdinaryOwnPropertyKeys) lists such keys first. */
const MAX_ARRAY_INDEX = 4_294_967_294;

/**
 * Whether `key` is an array index: the canonical decimal string of an integer 0 … 2^32 − 2
 * ("0", "7", "4294967294"; not "01", "-1", "1.0" or "4294967295").
 */
function isArrayIndex(key: string): boolean {
  const length = key.length;
  if (length === 0 || length > 10) return false;
  const first = key.charCodeAt(0);
  if (first < 48 || first > 57 || (first === 48 && length > 1)) return false;
  for (let index = 1; index < length; index += 1) {
    const code = key.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  return length < 10 || Number(key) <= MAX_ARRAY_INDEX;
}

/**
 * The canonical order of an object's keys (docs/PI-WORKFLOWS-FILES.md §8): the order a JavaScript
 * object built from the keys sorted by code unit enumerates them — array-index keys first in
 * ascending numeric order, then the other keys in code-unit order. Sorts `keys` in place and
 * returns them.
 */
function sortCanonically(keys: string[]): string[] {
  if (!keys.some(isArrayIndex)) return keys.sort(compareCodeUnits);
  return keys.sort((a, b) => {
    const aIndex = isArrayIndex(a);
    const bIndex = isArrayIndex(b);
    if (aIndex && bIndex) return Number(a) - Number(b);
    if (aIndex !== bIndex) return aIndex ? -1 : 1;
    return compareCodeUnits(a, b);
  });
}

/**
 * Plain code-unit string order, as `Array.prototype.sort` without a comparator (and SQLite's
 * BINARY collation on ASCII ids): the run-id tie-break of every run order.
 *
 * @returns negative, 0 or positive, as `a` sorts before, with or after `b`
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
