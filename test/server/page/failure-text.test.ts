/**
 * The live page's failure texts (src/server/public/failure-text.js): never `[object …]`. (Its
 * retry policy is the typed client's: test/clients/typed-client-policy.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { WorkflowClientError } from '../../../src/client/index.js';
import { closeText, failureText } from '../../../src/server/public/failure-text.js';

describe('failure texts', () => {
  it.each([
    [new Event('error'), 'connection failed'],
    [{ code: 1006, reason: '' }, 'connection lost (code 1006)'],
    [{ code: 1001, reason: 'Going away' }, 'server going away (code 1001: Going away)'],
    [{ code: 4403, reason: 'Forbidden' }, 'forbidden: open the page with ?token=…'],
    [{ code: 4400, reason: 'Invalid message' }, 'connection closed (code 4400: Invalid message)'],
    [[{ message: 'Workflow run not found' }, { message: 'Too deep' }], 'Workflow run not found; Too deep'],
    [[], 'unknown error'],
    [new Error('HTTP 500'), 'HTTP 500'],
    [new TypeError('Failed to fetch'), 'connection failed'],
    [new WorkflowClientError('graphql', 'Workflow run not found: x'), 'Workflow run not found: x'],
    ['plain text', 'plain text'],
    [{}, 'connection failed'],
    [undefined, 'unknown error'],
    [null, 'unknown error'],
  ])('%o → %s', (error, text) => {
    expect(failureText(error)).toBe(text);
    expect(failureText(error)).not.toContain('[object');
  });

  it('closeText of a close with a reason', () => {
    expect(closeText({ code: 1011, reason: 'Internal error' })).toBe('connection closed (code 1011: Internal error)');
  });
});
