import { canonicalJson, compareCodeUnits, normalizeJson, type JsonValue } from './canonical-json.js';
import { isStoreError, StoreError } from './errors.js';
import { sha256Hex } from './values.js';

/**
 * The definition digest of docs/STORE-RULES.md §13.4: SHA-256 of the canonical JSON of the snapshot.
 *
 * @returns 64 lowercase hex characters
 * @throws StoreError(validation, field `definition`) for a value canonical JSON refuses (§2.1)
 */
export function definitionDigest(definition: unknown): string {
  try {
    return sha256Hex(canonicalJson(definition));
  } catch (error) {
    if (isStoreError(error) && error.kind === 'validation') throw new StoreError('validation', error.message, 'definition');
    throw error;
  }
}

/**
 * JSON text with every object's keys in plain code-unit order ("10" before "2"): the canonical
 * form this server wrote before it wrote as pi-workflows does (docs/PI-WORKFLOWS-FILES.md §8).
 * Used only to recognise a digest stored in that form; never written.
 */
function codeUnitOrderJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(codeUnitOrderJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const members = Object.keys(value)
    .sort(compareCodeUnits)
    .map((key) => `${JSON.stringify(key)}:${codeUnitOrderJson(value[key] as JsonValue)}`);
  return `{${members.join(',')}}`;
}

/**
 * Whether `stored` is the definition digest of the same run written by an older build in the
 * code-unit key order, where `given` is the canonical digest of `definition`
 * (docs/PI-WORKFLOWS-FILES.md §8): an identical retry of such a run is then still identical.
 *
 * @param given the retry's digest (32 bytes)
 * @param stored the existing run's `definition_digest` (32 bytes)
 * @returns false as well for a definition canonical JSON refuses
 */
export function isOlderFormDigest(definition: unknown, given: Buffer, stored: Buffer): boolean {
  try {
    if (given.equals(stored) || definitionDigest(definition) !== given.toString('hex')) return false;
    return sha256Hex(codeUnitOrderJson(normalizeJson(definition))) === stored.toString('hex');
  } catch {
    return false;
  }
}
