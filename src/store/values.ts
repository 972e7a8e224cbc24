import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { StoreError } from './errors.js';

/** A clock: returns the current time in epoch ms. Injected so tests control time. */
export type Clock = () => number;

/** The system clock (`Date.now`). */
export const systemClock: Clock = () => Date.now();

/**
 * Resolves an operation's optional ISO `now` (docs/STORE-RULES.md §1).
 *
 * @param now ISO-8601 timestamp, or undefined for the clock
 * @param clock the store's clock
 * @returns epoch ms
 * @throws StoreError(validation) `Invalid timestamp`
 */
export function resolveNow(now: string | undefined, clock: Clock): number {
  if (now === undefined) return clock();
  const ms = typeof now === 'string' ? Date.parse(now) : Number.NaN;
  if (!Number.isFinite(ms)) throw new StoreError('validation', 'Invalid timestamp', 'now');
  return ms;
}

/** Epoch ms → ISO-8601 UTC with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Epoch ms or null → ISO string or null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * Checks run id syntax (docs/STORE-RULES.md §1): first `[A-Za-z0-9]`, then up to 199 of `[A-Za-z0-9._-]`.
 *
 * @param field input field name reported with the error
 * @throws StoreError(validation) `Invalid workflow run id: <runId>`
 */
export function assertRunId(runId: string, field = 'runId'): void {
  if (typeof runId !== 'string' || !RUN_ID.test(runId)) {
    throw new StoreError('validation', `Invalid workflow run id: ${String(runId)}`, field);
  }
}

const DIGEST = /^(?:sha256:)?([0-9a-fA-F]{64})$/;

/**
 * Parses a definition digest (docs/STORE-RULES.md §1): optional `sha256:`, 64 hex in either case.
 *
 * @returns the 32 raw bytes
 * @throws StoreError(validation) `Expected a SHA-256 digest`
 */
export function digestBuffer(value: string): Buffer {
  const match = typeof value === 'string' ? DIGEST.exec(value) : null;
  if (match === null) throw new StoreError('validation', 'Expected a SHA-256 digest', 'definitionDigest');
  return Buffer.from(match[1] as string, 'hex');
}

/**
 * Parses a terminal fingerprint (docs/STORE-RULES.md §6.12): optional `sha256:`, 64 hex in either case.
 *
 * @returns the 32 raw bytes
 * @throws StoreError(validation) `Expected a terminal fingerprint`
 */
export function terminalFingerprintBuffer(value: string, field = 'parentTerminalFingerprint'): Buffer {
  const match = typeof value === 'string' ? DIGEST.exec(value) : null;
  if (match === null) throw new StoreError('validation', 'Expected a terminal fingerprint', field);
  return Buffer.from(match[1] as string, 'hex');
}

/** SHA-256 of a string's UTF-8 bytes (or of raw bytes), as 32 raw bytes. */
export function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/** SHA-256 as 64 lowercase hex characters. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hash stored for a claim token: SHA-256 of its UTF-8 bytes (docs/STORE-RULES.md §5). */
export function tokenHash(claimToken: string): Buffer {
  return sha256(claimToken);
}

/**
 * Resource id of an aggregate (docs/STORE-RULES.md §3.3): `<type>-` + first 40 hex of
 * SHA-256(`<type>` NUL `<aggregate key>`).
 */
export function resourceIdFor(type: string, aggregateKey: string): string {
  return `${type}-${sha256Hex(`${type}\u0000${aggregateKey}`).slice(0, 40)}`;
}

/**
 * A fresh event id: `event-` + UUID (docs/STORE-RULES.md §3.5), a time-ordered version 7 UUID (RFC 9562
 * §5.7, from the `uuid` package: 48 bits of Unix time in ms, then a counter that keeps ids of one
 * process increasing within a millisecond, then random bits). Ids of later events sort after
 * earlier ones, so the unique index on `events.event_id` grows at its right edge instead of at a
 * random leaf. pi-workflows writes v4 ids and only stores and compares them, so
 * both are valid rows on either kind of file; v7 is kept for the pages it saves a group commit
 * (measured in docs/PI-WORKFLOWS-FILES.md §8).
 *
 * @returns `event-xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx`, lowercase hex
 */
export function newEventId(): string {
  return `event-${uuidv7()}`;
}

/** Longest lease a claim may ask for: 24 hours, in ms. */
export const MAX_LEASE_MS = 86_400_000;

/**
 * Checks a lease duration: an integer from 1 to {@link MAX_LEASE_MS} ms.
 *
 * @throws StoreError(validation) `Lease duration must be an integer from 1 to 86400000 ms`
 */
export function assertLeaseMs(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw new StoreError('validation', `Lease duration must be an integer from 1 to ${MAX_LEASE_MS} ms`, 'leaseMs');
  }
}
