/**
 * Fuzzed input: property-based tests (fast-check) send thousands of random and
 * malformed mutation inputs over HTTP as JSON bodies with variables — bad ids, wrong types,
 * huge strings, bad fingerprints, negative or huge leaseMs, JSON nested 10,000 deep, unknown
 * enum values and fields, missing required fields — against a server holding runs in several
 * states. Every answer must be
 *
 * - a `...Success`, or a typed error (a member of the result union implementing `Error` with a
 *   non-empty message and the code of its type), or
 * - a GraphQL request error (validation / variable coercion) with a clear, unmasked message,
 *
 * never HTTP 5xx nor the masked "Unexpected error.". After every answer that is not a success,
 * every table is exactly as before the call (a digest of every row).
 *
 * `FAULT_SEED=<n>` repeats a run; `FAULT_FUZZ_RUNS=<n>` sets the runs per mutation.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDigest, faultSeed, postGraphQL } from '../helpers/fault-fixtures.js';
import { claim, failedRoot, reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';
import { connectionOf } from '../helpers/store-internals.js';

const RUNS_PER_MUTATION = Number(process.env.FAULT_FUZZ_RUNS ?? 450);

/** Typed error → its code (docs/GRAPHQL-CONTRACT.md). */
const ERROR_CODES: Record<string, string> = {
  NotFoundError: 'NOT_FOUND',
  LineageError: 'LINEAGE_INVALID',
  ConflictError: 'CONFLICT',
  ClaimLostError: 'CLAIM_LOST',
  RestartRejectedError: 'RESTART_REJECTED',
  ValidationError: 'INVALID_INPUT',
  ForbiddenError: 'FORBIDDEN',
};

const RESULT = '{ __typename ... on Error { code message } }';

/** Every mutation: field name, input type, success type. */
const MUTATIONS = {
  reserveWorkflowRun: { input: 'ReserveWorkflowRunInput', success: 'ReserveWorkflowRunSuccess' },
  restartWorkflowRun: { input: 'RestartWorkflowRunInput', success: 'RestartWorkflowRunSuccess' },
  claimWorkflowRun: { input: 'ClaimWorkflowRunInput', success: 'ClaimWorkflowRunSuccess' },
  parkWorkflowRun: { input: 'ParkWorkflowRunInput', success: 'ParkWorkflowRunSuccess' },
  settleWorkflowRun: { input: 'SettleWorkflowRunInput', success: 'SettleWorkflowRunSuccess' },
  renewWorkflowRunClaim: { input: 'RenewWorkflowRunClaimInput', success: 'RenewWorkflowRunClaimSuccess' },
  markWorkflowRunRunning: { input: 'MarkWorkflowRunRunningInput', success: 'MarkWorkflowRunRunningSuccess' },
  reportWorkflowRunState: { input: 'ReportWorkflowRunStateInput', success: 'ReportWorkflowRunStateSuccess' },
  cancelWorkflowRun: { input: 'CancelWorkflowRunInput', success: 'CancelWorkflowRunSuccess' },
  pauseWorkflowRun: { input: 'PauseWorkflowRunInput', success: 'PauseWorkflowRunSuccess' },
  resumeWorkflowRun: { input: 'ResumeWorkflowRunInput', success: 'ResumeWorkflowRunSuccess' },
} as const;
type MutationName = keyof typeof MUTATIONS;

function documentOf(name: MutationName): string {
  return `mutation Fuzz($input: ${MUTATIONS[name].input}!) { ${name}(input: $input) ${RESULT} }`;
}

/** A JSON text spliced into the body as it is (deep nesting, number literals JSON.stringify cannot write). */
class RawJson {
  constructor(readonly text: string) {}
}

/** Serialises a value, writing {@link RawJson} texts verbatim. */
function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof RawJson) {
      raws.push(item.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return item;
  });
  return text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_match, index: string) => raws[Number(index)] as string);
}

// ---------------------------------------------------------------------------------------------
// arbitraries

const EXISTING = ['fz-queued', 'fz-claimed', 'fz-failed', 'fz-headless', 'fz-parked'];
const TOKENS = ['fz-token-claimed', 'fz-token-parked', 'secret'];

const huge = fc.constantFrom(100_000, 70_000, 4_097).map((length) => 'x'.repeat(length));
const unicode = fc.string({ unit: 'grapheme', maxLength: 20 });
const wrongType = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);
const runIdLike = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EXISTING) },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,24}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'missing-run',
      'a'.repeat(200),
      'a'.repeat(201),
      '../etc/passwd',
      "x'; DROP TABLE runs; --",
      '-dash-first',
      'run\u0000nul',
      '\ud800',
    ),
  },
  { weight: 1, arbitrary: unicode },
  { weight: 1, arbitrary: huge },
);
const text = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: unicode },
  { weight: 1, arbitrary: huge },
  { weight: 1, arbitrary: fc.constantFrom('', 'session-1', 'runner-1', 'host-runner') },
);
const token = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...TOKENS) }, { weight: 2, arbitrary: text });
const hex64 = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
const fingerprint = fc.oneof(
  hex64,
  hex64.map((hex) => `sha256:${hex}`),
  fc.stringMatching(/^[0-9a-f]{0,70}$/),
  fc.constantFrom('sha256:', 'SHA256:' + 'a'.repeat(64), 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), ' '.repeat(64)),
  text,
);
const leaseMs = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 86_400_000 }) },
  fc.integer({ min: -(2 ** 31), max: 0 }),
  fc.integer({ min: 86_400_001, max: 2 ** 31 - 1 }),
  fc.constantFrom<unknown>(2 ** 31, 2 ** 53, -(2 ** 53), 1.5, -0.5, '1000', true, new RawJson('1e400'), new RawJson('123456789012345678901234567890')),
);
const intLike = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 5 }) },
  fc.integer(),
  fc.constantFrom<unknown>(2 ** 31, 0.5, '1', new RawJson('1e400')),
);

/** JSON nested `depth` levels deep, as raw text (arrays or objects). */
function deepJson(depth: number, objects: boolean): RawJson {
  return new RawJson(objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth));
}
const json = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      deepJson(10_000, false),
      deepJson(10_000, true),
      deepJson(64, false),
      deepJson(65, false),
      new RawJson('1e400'),
      new RawJson('{"n":-1e999}'),
      new RawJson('-0'),
      { big: 'y'.repeat(1_100_000) },
      { proto: { __proto__: 1 } },
      new RawJson('{"__proto__":{"polluted":true}}'),
    ),
  },
);
const enumOf = (...values: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('BOGUS', 'completed', '', `${values[0]} `, 1, null) },
  );

/** How one field of an otherwise well-typed input is broken. */
type Corruption = { field: string; how: 'wrongType' | 'null' | 'absent'; value: unknown };

/**
 * An input object: every field a value of its arbitrary (optional fields sometimes absent),
 * then 0–2 fields broken (a wrong type, null, or absent — an error for required fields), and
 * now and then an unknown field; sometimes not an object at all.
 */
function inputOf(required: Record<string, fc.Arbitrary<unknown>>, optional: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<unknown> {
  const keys = [...Object.keys(required), ...Object.keys(optional)];
  const record = fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required) as never[] });
  const corruption: fc.Arbitrary<Corruption> = fc.record({
    field: fc.constantFrom(...keys),
    how: fc.constantFrom('wrongType' as const, 'null' as const, 'absent' as const),
    value: wrongType,
  });
  const object = fc
    .tuple(
      record,
      fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(corruption, { minLength: 1, maxLength: 2 }) }),
      fc.oneof({ weight: 12, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('bogusField', 'claimTokenHash', 'id') }),
    )
    .map((parts) => {
      const [value, corruptions, extra] = parts as [Record<string, unknown>, Corruption[], string | null];
      const input: Record<string, unknown> = { ...value };
      for (const { field, how, value: wrong } of corruptions) {
        if (how === 'absent') delete input[field];
        else input[field] = how === 'null' ? null : wrong;
      }
      if (extra !== null) input[extra] = 'x';
      return input;
    });
  return fc.oneof({ weight: 15, arbitrary: object }, { weight: 1, arbitrary: wrongType });
}

const claimInput = inputOf({ runnerId: text, claimToken: token, leaseMs });
const sessionId = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('session-fz', 'session-failed', 'session-other') }, { weight: 1, arbitrary: text });
const INPUTS: Record<MutationName, fc.Arbitrary<unknown>> = {
  // Half the time without lineage fields, so that well-formed roots get through and succeed.
  reserveWorkflowRun: fc.oneof(
    inputOf(
      { runId: runIdLike, workflowName: text, workflowRef: text, definition: json, originSessionId: sessionId },
      { input: json, launchOptions: json, executionMode: enumOf('INTERACTIVE', 'HEADLESS'), claim: claimInput },
    ),
    inputOf(
      { runId: runIdLike, workflowName: text, workflowRef: text, definition: json, originSessionId: sessionId },
      {
        workflowSource: fc.oneof(json, fc.constant({ kind: 'builtin', id: 'x', revision: '1' })),
        input: json,
        launchOptions: json,
        executionMode: enumOf('INTERACTIVE', 'HEADLESS'),
        parentRunId: runIdLike,
        lineageKind: enumOf('CONTINUATION', 'RESTART'),
        restartNumber: intLike,
        parentTerminalFingerprint: fingerprint,
        claim: claimInput,
      },
    ),
  ),
  restartWorkflowRun: inputOf(
    { runId: runIdLike, originSessionId: sessionId },
    { parentTerminalFingerprint: fingerprint, restartRunId: runIdLike, claim: claimInput },
  ),
  claimWorkflowRun: inputOf({ runnerId: text, claimToken: token, leaseMs }, { runId: runIdLike, sessionId: text }),
  parkWorkflowRun: inputOf({ runId: runIdLike, claimToken: token }, { noProgressDetail: text }),
  settleWorkflowRun: inputOf(
    { runId: runIdLike, claimToken: token, status: enumOf('COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELLED') },
    { error: text, output: json },
  ),
  renewWorkflowRunClaim: inputOf({ runId: runIdLike, claimToken: token, leaseMs }),
  markWorkflowRunRunning: inputOf({ runId: runIdLike, claimToken: token }),
  reportWorkflowRunState: inputOf({ runId: runIdLike, claimToken: token, state: enumOf('RUNNING', 'WAITING') }, { detail: text }),
  cancelWorkflowRun: inputOf({ runId: runIdLike }, { claimToken: token }),
  pauseWorkflowRun: inputOf({ runId: runIdLike }),
  resumeWorkflowRun: inputOf({ runId: runIdLike }),
};

// ---------------------------------------------------------------------------------------------

describe('fuzzed mutation inputs over HTTP', () => {
  const seed = faultSeed();
  let fx: TestServer;
  const tally = { calls: 0, successes: 0, typedErrors: 0, requestErrors: 0 };
  const typenames = new Map<string, number>();

  beforeAll(async () => {
    fx = await startTestServer();
    await reserve(fx, reserveInput('fz-queued', { originSessionId: 'session-fz' }));
    await reserve(fx, reserveInput('fz-claimed', { originSessionId: 'session-claimed' }));
    await claim(fx, 'fz-claimed', 'fz-token-claimed');
    await failedRoot(fx, 'fz-failed', 'boom', 'session-failed');
    await reserve(fx, reserveInput('fz-headless', { originSessionId: 'session-headless', executionMode: 'HEADLESS' }));
    await reserve(fx, reserveInput('fz-parked', { originSessionId: 'session-parked' }));
    await claim(fx, 'fz-parked', 'fz-token-parked');
    const parked = await postGraphQL(fx.url, {
      query: 'mutation { parkWorkflowRun(input: { runId: "fz-parked", claimToken: "fz-token-parked" }) { __typename } }',
    });
    expect(parked.body?.data).toEqual({ parkWorkflowRun: { __typename: 'ParkWorkflowRunSuccess' } });
  });
  afterAll(async () => {
    await fx?.close();
    console.info(
      `fuzz (seed ${seed}): ${tally.calls} calls — ${tally.successes} successes, ${tally.typedErrors} typed errors, ` +
        `${tally.requestErrors} GraphQL request errors; answers ${JSON.stringify(Object.fromEntries(typenames))}`,
    );
  });

  /**
   * Sends one body and checks the answer's shape and, unless it is a success, that the
   * database did not change.
   */
  async function sendAndCheck(name: MutationName | null, body: string, label: string): Promise<void> {
    const before = contentDigest(connectionOf(fx.store));
    const response = await postGraphQL(fx.url, body);
    tally.calls += 1;
    const context = `${label}: HTTP ${response.status} ${response.text.slice(0, 400)}`;
    expect(response.status, context).toBeLessThan(500);
    expect(response.text, context).not.toContain('Unexpected error');
    expect(response.body, context).toBeDefined();
    const errors = response.body?.errors;
    const result = name === null ? undefined : (response.body?.data?.[name] as { __typename?: string; code?: string; message?: string } | undefined | null);
    let success = false;
    if (errors !== undefined) {
      tally.requestErrors += 1;
      typenames.set('GraphQLError', (typenames.get('GraphQLError') ?? 0) + 1);
      expect(response.body?.data ?? null, context).toBeNull();
      expect(errors.length, context).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error.message.length, context).toBeGreaterThan(10);
        expect(error.extensions?.code, context).not.toBe('INTERNAL_SERVER_ERROR');
      }
    } else {
      expect(result?.__typename, context).toBeDefined();
      const typename = result?.__typename as string;
      typenames.set(typename, (typenames.get(typename) ?? 0) + 1);
      if (name !== null && typename === MUTATIONS[name].success) {
        success = true;
        tally.successes += 1;
      } else {
        tally.typedErrors += 1;
        expect(Object.keys(ERROR_CODES), context).toContain(typename);
        expect(result?.code, context).toBe(ERROR_CODES[typename]);
        expect((result?.message ?? '').length, context).toBeGreaterThan(0);
      }
    }
    if (!success) expect(contentDigest(connectionOf(fx.store)), `${context}: the database changed`).toBe(before);
  }

  for (const name of Object.keys(MUTATIONS) as MutationName[]) {
    it(`${name}: ${RUNS_PER_MUTATION} random inputs answer a result or a clear error and change nothing when refused`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(INPUTS[name], async (input) => {
          await sendAndCheck(name, toJsonText({ query: documentOf(name), variables: { input }, operationName: 'Fuzz' }), name);
        }),
        { numRuns: RUNS_PER_MUTATION, seed, endOnFailure: true },
      );
    });
  }

  it('malformed request bodies and inline literals answer clear request errors', async () => {
    const reserveDoc = documentOf('reserveWorkflowRun');
    const bodies: Array<[MutationName | null, string]> = [
      [null, '{'],
      [null, 'null'],
      [null, '[]'],
      [null, '"just a string"'],
      [null, '{}'],
      [null, JSON.stringify({ query: 42 })],
      [null, JSON.stringify({ query: 'mutation {' })],
      [null, JSON.stringify({ query: reserveDoc, variables: 'not an object' })],
      [null, JSON.stringify({ query: reserveDoc, variables: [] })],
      [null, JSON.stringify({ query: reserveDoc, operationName: 'Nope' })],
      ['reserveWorkflowRun', JSON.stringify({ query: reserveDoc })],
      ['reserveWorkflowRun', JSON.stringify({ query: reserveDoc, variables: { input: null } })],
      // The same limits for values written inline in the document instead of variables.
      [
        'settleWorkflowRun',
        JSON.stringify({ query: `mutation { settleWorkflowRun(input: { runId: "fz-claimed", claimToken: "x", status: BOGUS }) ${RESULT} }` }),
      ],
      [
        'settleWorkflowRun',
        JSON.stringify({
          query: `mutation { settleWorkflowRun(input: { runId: "fz-claimed", claimToken: "x", status: COMPLETED, output: ${'['.repeat(3_000)}${']'.repeat(3_000)} }) ${RESULT} }`,
        }),
      ],
      [
        'claimWorkflowRun',
        JSON.stringify({ query: `mutation { claimWorkflowRun(input: { runnerId: "r", claimToken: "t", leaseMs: 99999999999 }) ${RESULT} }` }),
      ],
      ['claimWorkflowRun', JSON.stringify({ query: `mutation { claimWorkflowRun(input: { runnerId: "r", claimToken: "t", leaseMs: -1 }) ${RESULT} }` })],
      ['parkWorkflowRun', JSON.stringify({ query: `mutation { parkWorkflowRun(input: { runId: "${'z'.repeat(100_000)}", claimToken: "t" }) ${RESULT} }` })],
      ['parkWorkflowRun', JSON.stringify({ query: `mutation { parkWorkflowRun(input: { claimToken: "t" }) ${RESULT} }` })],
    ];
    for (const [name, body] of bodies) await sendAndCheck(name, body, body.slice(0, 120));
  });
});
