/**
 * Stale marks of the live page: a run in queue state STARTING or RUNNING whose
 * claim expired, or that has none.
 */
import { describe, expect, it } from 'vitest';
import { isStale, nextStaleAt, staleReason } from '../../../src/server/public/stale.js';

const NOW = Date.parse('2026-01-01T12:00:00.000Z');
const claim = (expiresAt: string) => ({ expiresAt });

describe('staleReason / isStale', () => {
  it.each(['STARTING', 'RUNNING'])('%s without a claim: "no claim"', (queueStatus) => {
    expect(staleReason({ queueStatus, claim: null }, NOW)).toBe('no claim');
    expect(isStale({ queueStatus, claim: null }, NOW)).toBe(true);
  });

  it('RUNNING with a claim that expired at or before now: "claim expired at <ISO>"', () => {
    expect(staleReason({ queueStatus: 'RUNNING', claim: claim('2026-01-01T11:59:59.000Z') }, NOW)).toBe('claim expired at 2026-01-01T11:59:59.000Z');
    expect(staleReason({ queueStatus: 'STARTING', claim: claim('2026-01-01T12:00:00.000Z') }, NOW)).toBe('claim expired at 2026-01-01T12:00:00.000Z');
  });

  it('an expired claim the server reports (claim null, expiredClaim set): "claim expired at <ISO>"', () => {
    const expiresAt = new Date(NOW - 1_000).toISOString();
    expect(staleReason({ queueStatus: 'STARTING', claim: null, expiredClaim: { expiresAt } }, NOW)).toBe(`claim expired at ${expiresAt}`);
  });

  it('RUNNING with a live claim: not stale', () => {
    expect(staleReason({ queueStatus: 'RUNNING', claim: claim('2026-01-01T12:00:00.001Z') }, NOW)).toBeNull();
    expect(isStale({ queueStatus: 'RUNNING', claim: claim('2026-01-01T12:05:00.000Z') }, NOW)).toBe(false);
  });

  it.each(['QUEUED', 'PARKED', 'DONE', 'FAILED', 'CANCELLED', undefined])('queue %s: never stale, claim or not', (queueStatus) => {
    expect(staleReason({ queueStatus, claim: null }, NOW)).toBeNull();
    expect(staleReason({ queueStatus, claim: claim('2020-01-01T00:00:00.000Z') }, NOW)).toBeNull();
  });
});

describe('nextStaleAt', () => {
  it('is the earliest future expiry among claimed runs', () => {
    const runs = [
      { queueStatus: 'RUNNING', claim: claim('2026-01-01T12:10:00.000Z') },
      { queueStatus: 'STARTING', claim: claim('2026-01-01T12:03:00.000Z') },
      { queueStatus: 'PARKED', claim: claim('2026-01-01T12:01:00.000Z') },
      { queueStatus: 'RUNNING', claim: claim('2026-01-01T11:00:00.000Z') },
      { queueStatus: 'RUNNING', claim: null },
    ];
    expect(nextStaleAt(runs, NOW)).toBe(Date.parse('2026-01-01T12:03:00.000Z'));
  });

  it('is null when no claim will expire', () => {
    expect(nextStaleAt([], NOW)).toBeNull();
    expect(nextStaleAt([{ queueStatus: 'DONE', claim: null }], NOW)).toBeNull();
  });
});
