/**
 * Shared fixture of the GraphQL tests: the real server (`startServer`) on port 0 over a fresh
 * database file in a temporary directory, a silent logger, a clock the test moves by hand, and
 * `gql()` that sends a typed document (from `schema/generated/`) over real HTTP with `fetch`.
 *
 * Also: table snapshots (read straight from the server's SQLite connection) so a test can prove
 * that a failed mutation wrote nothing, and a few run-flow helpers built on the generated
 * mutations (reserve, claim, park, settle, restart).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { GraphQLFormattedError } from 'graphql';
import { pino, type Logger } from 'pino';
import { expect } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/app.js';
import type { ServerConfig } from '../../src/server/config.js';
import type { WorkflowStore } from '../../src/store/index.js';
import {
  ClaimWorkflowRunDocument,
  ParkWorkflowRunDocument,
  ReserveWorkflowRunDocument,
  RestartWorkflowRunDocument,
  SettleWorkflowRunDocument,
  type ClaimWorkflowRunInput,
  type ReserveWorkflowRunInput,
  type RestartWorkflowRunInput,
  type RunFieldsFragment,
  type SettleStatus,
  type TypedDocumentString,
} from '../../schema/generated/graphql.js';
import { TestClock as ManualClock } from './store-fixtures.js';
import { connectionOf } from './store-internals.js';

/** The tests' epoch and hand-moved clock: the same as the store tests'. */
export { T0, TestClock as ManualClock } from './store-fixtures.js';

/** One HTTP answer of `/graphql`. */
export interface GqlResponse<TResult> {
  status: number;
  headers: Headers;
  /** Raw response body. */
  text: string;
  data: TResult | null | undefined;
  errors: GraphQLFormattedError[] | undefined;
}

/** Options of one request. */
export interface GqlOptions {
  headers?: Record<string, string>;
  /**
   * The Authorization header: default `Bearer <token>` when the server has a token (so flow
   * helpers work on secured servers), `null` for none, or this exact value.
   */
  authorization?: string | null;
  /** Sent as `operationName`; default: the name of the document's first operation. */
  operationName?: string | null;
}

/** A document: generated `TypedDocumentString` or a plain query string (untyped). */
export type Document<TResult, TVariables> = TypedDocumentString<TResult, TVariables> | string;

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** Reuse this database file (e.g. a second, read-only server); default a fresh temp file. */
  dbPath?: string;
  readOnly?: boolean;
  token?: string | null;
  /** `--read-token` values. */
  readTokens?: string[];
  /** `--metadata-token` values. */
  metadataTokens?: string[];
  /** `--cors-origin` values. */
  corsOrigins?: string[];
  /** `--allowed-host` values. */
  allowedHosts?: string[];
  /** `--persisted-operations` manifest path. */
  persistedOperations?: string;
  /** `--only-persisted`. */
  onlyPersisted?: boolean;
  maxBodyBytes?: number;
  /** `--live-throttle-ms` (default the server's, 250). */
  liveThrottleMs?: number;
  /** `--max-live-queries` (default the server's, 50). */
  maxLiveQueriesPerConnection?: number;
  /** Port to listen on (default 0: any free port), e.g. to restart a server where clients expect it. */
  port?: number;
  /** Default `pino({ level: 'silent' })`. */
  logger?: Logger;
  /** Default a new {@link ManualClock} at {@link T0}. */
  clock?: ManualClock;
  /** Turns tracing on (docs/TRACING.md) with this span processor instead of the OTLP exporter. */
  spanProcessor?: SpanProcessor;
}

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>/graphql`. */
  url: string;
  /** `http://127.0.0.1:<port>/health`. */
  healthUrl: string;
  port: number;
  dbPath: string;
  /** The temporary directory (database and project path). */
  dir: string;
  store: WorkflowStore;
  clock: ManualClock;
  server: RunningServer;
  /** Sends a document over HTTP POST and returns status, data and errors. */
  gql<TResult, TVariables>(document: Document<TResult, TVariables>, variables?: TVariables, options?: GqlOptions): Promise<GqlResponse<TResult>>;
  /** Like {@link gql} but expects HTTP 200 without errors and returns `data`. */
  data<TResult, TVariables>(document: Document<TResult, TVariables>, variables?: TVariables, options?: GqlOptions): Promise<TResult>;
  /** Stops the server; removes the temporary directory when this fixture created it. */
  close(): Promise<void>;
}

/** Name of the first operation of a document, or null. */
export function operationNameOf(query: string): string | null {
  return /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(query)?.[1] ?? null;
}

/**
 * Starts the real server on 127.0.0.1, port 0 unless `options.port`.
 *
 * @returns the server and its helpers; call `close()` in `afterEach`/`afterAll`
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const ownsDir = options.dbPath === undefined;
  const dir = ownsDir ? mkdtempSync(join(tmpdir(), 'pi-workflows-graphql-')) : join(options.dbPath as string, '..');
  const dbPath = options.dbPath ?? join(dir, 'state.db');
  const clock = options.clock ?? new ManualClock();
  const config: ServerConfig = {
    dbPath,
    port: options.port ?? 0,
    host: '127.0.0.1',
    readOnly: options.readOnly ?? false,
    token: options.token ?? null,
    readTokens: options.readTokens ?? [],
    metadataTokens: options.metadataTokens ?? [],
    corsOrigins: options.corsOrigins ?? [],
    allowedHosts: options.allowedHosts ?? [],
    projectPath: dir,
    pollIntervalMs: 25,
    keepAliveMs: 12_000,
    maxBodyBytes: options.maxBodyBytes ?? 2_097_152,
    logLevel: 'silent',
    persistedOperations: options.persistedOperations ?? null,
    onlyPersisted: options.onlyPersisted ?? false,
    tracing: options.spanProcessor === undefined ? null : { protocol: 'http/protobuf' },
    ...(options.liveThrottleMs === undefined ? {} : { liveThrottleMs: options.liveThrottleMs }),
    ...(options.maxLiveQueriesPerConnection === undefined ? {} : { maxLiveQueriesPerConnection: options.maxLiveQueriesPerConnection }),
  };
  let server: RunningServer;
  try {
    server = await startServer(config, {
      logger: options.logger ?? pino({ level: 'silent' }),
      clock: clock.now,
      ...(options.spanProcessor === undefined ? {} : { spanProcessor: options.spanProcessor }),
    });
  } catch (error) {
    if (ownsDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  async function gql<TResult, TVariables>(
    document: Document<TResult, TVariables>,
    variables?: TVariables,
    requestOptions: GqlOptions = {},
  ): Promise<GqlResponse<TResult>> {
    const query = document.toString();
    const operationName = requestOptions.operationName === undefined ? operationNameOf(query) : requestOptions.operationName;
    const authorization = requestOptions.authorization === undefined ? (config.token === null ? null : `Bearer ${config.token}`) : requestOptions.authorization;
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(authorization === null ? {} : { authorization }),
        ...requestOptions.headers,
      },
      body: JSON.stringify({ query, ...(variables === undefined ? {} : { variables }), ...(operationName === null ? {} : { operationName }) }),
    });
    const text = await response.text();
    let body: { data?: TResult | null; errors?: GraphQLFormattedError[] } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // not JSON: left to the caller (text)
    }
    return { status: response.status, headers: response.headers, text, data: body.data, errors: body.errors };
  }

  async function data<TResult, TVariables>(document: Document<TResult, TVariables>, variables?: TVariables, requestOptions?: GqlOptions): Promise<TResult> {
    const response = await gql(document, variables, requestOptions);
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    expect(response.status).toBe(200);
    return response.data as TResult;
  }

  return {
    url: server.url,
    healthUrl: server.url.replace(/\/graphql$/, '/health'),
    port: server.port,
    dbPath,
    dir,
    store: server.store,
    clock,
    server,
    gql,
    data,
    close: async () => {
      await server.close();
      if (ownsDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every row of every table, read through the server's own connection (not counted as statements). */
export type TableSnapshot = Record<string, unknown[]>;

/**
 * Reads all tables (rows sorted by their JSON form, blobs as hex), to compare before and after
 * an operation that must change nothing.
 */
export function snapshotTables(store: WorkflowStore): TableSnapshot {
  const connection = connectionOf(store);
  const tables = connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{
    name: string;
  }>;
  const snapshot: TableSnapshot = {};
  for (const { name } of tables) {
    const rows = connection.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all() as Array<Record<string, unknown>>;
    snapshot[name] = rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? `hex:${value.toString('hex')}` : value))).sort();
  }
  return snapshot;
}

/** A definition snapshot for test runs. */
export const DEFINITION = {
  name: 'demo',
  steps: [
    { id: 'plan', type: 'agent' },
    { id: 'build', type: 'agent' },
  ],
};

/** A reserve input for a root run; `overrides` win. */
export function reserveInput(runId: string, overrides: Partial<ReserveWorkflowRunInput> = {}): ReserveWorkflowRunInput {
  return {
    runId,
    workflowName: 'demo',
    workflowRef: 'workflows/demo.ts',
    definition: DEFINITION,
    input: { task: runId },
    originSessionId: 'session-1',
    ...overrides,
  };
}

/** The run of a success result, or a test failure showing the typed error. */
function successRun<T extends { __typename: string }>(result: T, success: string): Extract<T, { run: unknown }> {
  expect(result.__typename, JSON.stringify(result)).toBe(success);
  return result as Extract<T, { run: unknown }>;
}

/** Reserves a run over GraphQL; expects success. */
export async function reserve(fx: TestServer, input: ReserveWorkflowRunInput): Promise<RunFieldsFragment> {
  const { reserveWorkflowRun } = await fx.data(ReserveWorkflowRunDocument, { input });
  return successRun(reserveWorkflowRun, 'ReserveWorkflowRunSuccess').run as RunFieldsFragment;
}

/** Claims a run by id over GraphQL; expects a claimed run. */
export async function claim(fx: TestServer, runId: string, claimToken: string, overrides: Partial<ClaimWorkflowRunInput> = {}): Promise<RunFieldsFragment> {
  const { claimWorkflowRun } = await fx.data(ClaimWorkflowRunDocument, {
    input: { runId, runnerId: 'runner-1', claimToken, leaseMs: 60_000, ...overrides },
  });
  const run = successRun(claimWorkflowRun, 'ClaimWorkflowRunSuccess').run as RunFieldsFragment | null;
  expect(run, `claim of ${runId} refused`).not.toBeNull();
  return run as RunFieldsFragment;
}

/** Parks a claimed run over GraphQL; expects success. */
export async function park(fx: TestServer, runId: string, claimToken: string): Promise<RunFieldsFragment> {
  const { parkWorkflowRun } = await fx.data(ParkWorkflowRunDocument, { input: { runId, claimToken } });
  return successRun(parkWorkflowRun, 'ParkWorkflowRunSuccess').run as RunFieldsFragment;
}

/** Settles a claimed run over GraphQL; expects success. */
export async function settle(
  fx: TestServer,
  runId: string,
  claimToken: string,
  status: SettleStatus,
  extra: { error?: string; output?: unknown } = {},
): Promise<RunFieldsFragment> {
  const { settleWorkflowRun } = await fx.data(SettleWorkflowRunDocument, { input: { runId, claimToken, status, ...extra } });
  return successRun(settleWorkflowRun, 'SettleWorkflowRunSuccess').run as RunFieldsFragment;
}

/** Restarts a run over GraphQL; expects success. */
export async function restart(fx: TestServer, input: RestartWorkflowRunInput): Promise<{ run: RunFieldsFragment; adopted: boolean }> {
  const { restartWorkflowRun } = await fx.data(RestartWorkflowRunDocument, { input });
  const success = successRun(restartWorkflowRun, 'RestartWorkflowRunSuccess') as { run: RunFieldsFragment; adopted: boolean };
  return { run: success.run, adopted: success.adopted };
}

/** Reserves, claims and settles a root run FAILED with `error`; returns the settled run. */
export async function failedRoot(fx: TestServer, runId: string, error: string, session = 'session-1'): Promise<RunFieldsFragment> {
  await reserve(fx, reserveInput(runId, { originSessionId: session }));
  fx.clock.advance(1_000);
  await claim(fx, runId, `token-${runId}`);
  fx.clock.advance(1_000);
  return settle(fx, runId, `token-${runId}`, 'FAILED', { error });
}
