/**
 * The selected run in the page's URL: `/#run=<id>`.
 */
import { describe, expect, it } from 'vitest';
import { hashWithRun, parseHash } from '../../../src/server/public/url-hash.js';

describe('parseHash', () => {
  it.each([
    ['#run=d1-c2-1', 'd1-c2-1'],
    ['run=d1-c2-1', 'd1-c2-1'],
    ['#run=a%2Fb%20c', 'a/b c'],
    ['#x=1&run=r-9', 'r-9'],
    ['#run=%20r-1%20', 'r-1'],
  ])('%s → %s', (hash, run) => {
    expect(parseHash(hash)).toEqual({ run });
  });

  it.each(['', '#', '#run=', '#run=%20', '#other=1'])('%s → no run', (hash) => {
    expect(parseHash(hash)).toEqual({ run: null });
  });
});

describe('hashWithRun', () => {
  it('sets the run, encoded, keeping other parameters', () => {
    expect(hashWithRun('', 'd1-c2-1')).toBe('#run=d1-c2-1');
    expect(hashWithRun('#run=old', 'a/b c')).toBe('#run=a%2Fb+c');
    expect(hashWithRun('#x=1', 'r')).toBe('#x=1&run=r');
    expect(parseHash(hashWithRun('', 'a/b c&d=e'))).toEqual({ run: 'a/b c&d=e' });
  });

  it('null removes the run; nothing left → empty', () => {
    expect(hashWithRun('#run=r', null)).toBe('');
    expect(hashWithRun('#x=1&run=r', null)).toBe('#x=1');
  });
});
