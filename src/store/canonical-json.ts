import { StoreError } from './errors.js';

/** A JSON value as stored by the store (after canonical normalisation). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Normalises a value per STORE.md §2.1: finite numbers only (-0 becomes 0), arrays keep order,
 * plain objects only with keys sorted by code unit and `undefined` values dropped.
 *
 * @param value any JavaScript value
 * @returns the normalised JSON value
 * @throws StoreError(validation) `JSON numbers must be finite`,
 *   `Only plain objects can be stored as canonical JSON`, `Unsupported JSON value type: <typeof>`
 */
export function normalizeJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new StoreError('validation', 'JSON numbers must be finite');
    return Object.is(value, -0) ? 0 : value;
  }
  if (Array.isArray(value)) return value.map((element) => normalizeJson(element));
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) {
      throw new StoreError('validation', 'Only plain objects can be stored as canonical JSON');
    }
    const result: { [key: string]: JsonValue } = {};
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record).sort(compareCodeUnits)) {
      const entry = record[key];
      if (entry === undefined) continue;
      result[key] = normalizeJson(entry);
    }
    return result;
  }
  throw new StoreError('validation', `Unsupported JSON value type: ${typeof value}`);
}

/**
 * Serialises a value as canonical JSON (STORE.md §2.1): normalised, no whitespace.
 *
 * @param value any JavaScript value accepted by {@link normalizeJson}
 * @returns the canonical JSON text
 * @throws StoreError(validation) as {@link normalizeJson}
 */
export function canonicalJson(value: unknown): string {
  return serialize(normalizeJson(value));
}

/**
 * Writes a normalised value with object keys in code-unit order. `JSON.stringify` alone would
 * put integer-like keys ("2", "10") first, whatever the sort, so objects are written by hand.
 */
function serialize(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  const keys = Object.keys(value).sort(compareCodeUnits);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${serialize(value[key] as JsonValue)}`).join(',')}}`;
}

/** Plain code-unit string order, as `Array.prototype.sort` without a comparator. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
