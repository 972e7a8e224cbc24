/**
 * Fixtures of the fault tests (test/faults): the server in a child process (the real CLI,
 * `node --import tsx src/server/main.ts`, so SIGKILL hits the process that holds the
 * database), raw GraphQL-over-HTTP requests, a seeded random source, and the store's
 * invariants as SQL checks that a test can run on any connection to a state database.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database as SqliteDatabase } from 'better-sqlite3';

/** The repository root. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A fresh temporary directory (the caller removes it). */
export function faultTempDir(prefix = 'pi-workflows-faults-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A fresh temporary directory in memory (`/dev/shm` when it exists, else the temp dir): for
 * tests about locking rather than durability, so every commit's fsync (synchronous=FULL) does
 * not turn a 10,000-run race into a disk benchmark. The caller removes it.
 */
export function memoryTempDir(prefix = 'pi-workflows-faults-'): string {
  return existsSync('/dev/shm') ? mkdtempSync(join('/dev/shm', prefix)) : faultTempDir(prefix);
}

/**
 * Spawns `node --import tsx <script> ...args` from the repository root: one process (no tsx
 * wrapper process in between), so a signal sent to the child reaches the script itself.
 */
export function spawnTsx(script: string, args: readonly string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** A server in a child process. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>/graphql` as printed by the child. */
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code and signal once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Options of {@link startServerProcess} and {@link spawnWarmServer}. */
export interface ServerProcessOptions {
  dbPath: string;
  projectPath: string;
  /** More CLI options (e.g. `--token x`). */
  args?: readonly string[];
  /** Give up when the child has not printed what is awaited after this many ms (default 30 s). */
  timeoutMs?: number;
}

/** A spawned child with its output collected and a way to wait for a line. */
interface WatchedChild {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first match of `pattern` in `stream` (from the start; default stdout), rejects on exit or timeout. */
  waitFor(pattern: RegExp, timeoutMs: number, stream?: 'stdout' | 'stderr'): Promise<RegExpExecArray>;
}

function watch(child: ChildProcessWithoutNullStreams): WatchedChild {
  let stdout = '';
  let stderr = '';
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    for (const listener of listeners) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      for (const listener of listeners) listener();
      resolve(exitInfo);
    });
  });
  return {
    child,
    stderr: () => stderr,
    exited,
    waitFor(pattern, timeoutMs, stream = 'stdout') {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(stream === 'stdout' ? stdout : stderr);
          if (match !== null) {
            done();
            resolve(match);
          } else if (exitInfo !== undefined) {
            done();
            reject(new Error(`child exited (code ${exitInfo.code}, signal ${exitInfo.signal}) before ${pattern}: ${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          child.kill('SIGKILL');
          reject(new Error(`child printed no ${pattern} within ${timeoutMs} ms: ${stderr}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/**
 * Starts the real CLI, `src/server/main.ts --db <dbPath> --port 0 --log-level silent --workers 1`,
 * and waits for its "listening on <url>" line. One process: a signal sent to `child` (SIGKILL
 * mid-write) reaches the process that serves the requests, not a cluster primary whose workers
 * would finish them (`options.args` may ask for `--workers N`; the last value wins).
 *
 * @throws Error with the child's stderr when it exits or times out before listening
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const watched = watch(
    spawnTsx('src/server/main.ts', [
      '--db',
      options.dbPath,
      '--port',
      '0',
      '--log-level',
      'silent',
      '--workers',
      '1',
      '--project',
      options.projectPath,
      ...(options.args ?? []),
    ]),
  );
  // The CLI prints its banner on stderr (stdout carries JSON log lines only).
  const match = await watched.waitFor(/listening on (http:\/\/\S+)/, options.timeoutMs ?? 30_000, 'stderr');
  return { url: match[1] as string, child: watched.child, stderr: watched.stderr, exited: watched.exited };
}

/** A server child that has loaded its modules and waits to open the database. */
export interface WarmServer {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the modules are loaded (`ready`). */
  ready: Promise<void>;
  /** Opens the database and listens; resolves with the running server. */
  start(): Promise<ServerProcess>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Where {@link bundleServerChild} writes the bundle: two levels below the repository root, so
 * the store's `migrations/` folder (found relative to its module) resolves as from `src/store/`.
 */
const SERVER_CHILD_BUNDLE = join(REPO_ROOT, 'node_modules', '.cache', 'pi-workflows-fault-server.mjs');

let bundled: Promise<string | undefined> | undefined;

/**
 * Bundles `test/children/fault-server.ts` with its dependencies into one ES module (esbuild, the
 * transpiler tsx itself uses; better-sqlite3 stays external): the same code, loaded in a
 * third of the time, which matters when a test starts twenty servers on a busy machine.
 *
 * @returns the bundle's path, or undefined when esbuild is not available (callers fall back to tsx)
 */
export function bundleServerChild(): Promise<string | undefined> {
  bundled ??= (async () => {
    try {
      const esbuild = (await import('esbuild')) as typeof import('esbuild');
      await esbuild.build({
        entryPoints: [join(REPO_ROOT, 'test', 'children', 'fault-server.ts')],
        outfile: SERVER_CHILD_BUNDLE,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        external: ['better-sqlite3'],
        banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
        logLevel: 'silent',
      });
      return SERVER_CHILD_BUNDLE;
    } catch {
      return undefined;
    }
  })();
  return bundled;
}

/**
 * Spawns `test/children/fault-server.ts` (startServer with the CLI's options): it loads every
 * module at once but opens the database only when {@link WarmServer.start} is called, so a
 * test can restart a killed server without paying the module loading again.
 *
 * @param bundle the path from {@link bundleServerChild}; undefined runs the source with tsx
 */
export function spawnWarmServer(options: ServerProcessOptions, bundle?: string): WarmServer {
  const args = ['--db', options.dbPath, '--project', options.projectPath, ...(options.args ?? [])];
  const watched = watch(
    bundle === undefined
      ? spawnTsx('test/children/fault-server.ts', args)
      : spawn(process.execPath, [bundle, ...args], { cwd: REPO_ROOT, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const timeoutMs = options.timeoutMs ?? 30_000;
  const ready = watched.waitFor(/^ready$/m, timeoutMs).then(() => undefined);
  ready.catch(() => undefined);
  return {
    child: watched.child,
    ready,
    exited: watched.exited,
    async start() {
      await ready;
      watched.child.stdin.write('start\n');
      const match = await watched.waitFor(/listening on (http:\/\/\S+)/, timeoutMs);
      return { url: match[1] as string, child: watched.child, stderr: watched.stderr, exited: watched.exited };
    },
  };
}

/** One raw answer of `/graphql`. */
export interface RawResponse {
  status: number;
  text: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  body: { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } | undefined;
}

/**
 * POSTs a JSON body (any value: the test decides what is malformed) to a GraphQL endpoint.
 *
 * @param body sent as `JSON.stringify(body)` unless it is already a string
 */
export async function postGraphQL(url: string, body: unknown, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<RawResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: RawResponse['body'];
  try {
    parsed = JSON.parse(text) as RawResponse['body'];
  } catch {
    parsed = undefined;
  }
  return { status: response.status, text, body: parsed };
}

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this test run: `FAULT_SEED` from the environment, else the clock. */
export function faultSeed(): number {
  const fromEnv = Number(process.env.FAULT_SEED);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Date.now() % 2_147_483_647;
}

/**
 * SHA-256 over every row of every table (rows in primary-key order, blobs as bytes), so two
 * calls return the same digest exactly when the database content is the same.
 */
export function contentDigest(connection: SqliteDatabase): string {
  const hash = createHash('sha256');
  const tables = connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>;
  for (const { name } of tables) {
    hash.update(`\u0000table ${name}\u0000`);
    const columns = connection.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(name) as Array<{ name: string }>;
    const order = columns.map((_, index) => String(index + 1)).join(', ');
    for (const row of connection
      .prepare(`SELECT * FROM "${name.replaceAll('"', '""')}" ORDER BY ${order}`)
      .raw()
      .iterate()) {
      for (const value of row as unknown[]) {
        if (Buffer.isBuffer(value)) hash.update(`b${value.length}:`).update(value);
        else hash.update(`${typeof value}:${String(value)}\u0001`);
      }
      hash.update('\u0002');
    }
  }
  return hash.digest('hex');
}

/** One broken invariant: which rule and the offending rows. */
export interface InvariantViolation {
  rule: string;
  rows: unknown[];
}

const ACTIVE_QUEUE = "('queued', 'starting', 'running')";
const TERMINAL_QUEUE = "('done', 'failed', 'cancelled')";
const OWNER_COLUMNS = ['owner_type', 'owner_id', 'token_hash', 'acquired_at', 'heartbeat_at', 'expires_at'];

/** The store's invariants (docs/STORE-RULES.md §3–§8) as queries that return the rows breaking them. */
export const INVARIANT_QUERIES: ReadonlyArray<{ rule: string; sql: string }> = [
  {
    rule: 'a root run is its own root, has no lineage kind, restart number 0 and no fingerprint',
    sql: `SELECT run_id FROM runs WHERE parent_run_id IS NULL AND (root_run_id <> run_id OR lineage_kind IS NOT NULL
            OR restart_number <> 0 OR parent_terminal_fingerprint IS NOT NULL)`,
  },
  {
    rule: "a child's root is its parent's root and it has a lineage kind",
    sql: `SELECT c.run_id FROM runs c LEFT JOIN runs p ON p.run_id = c.parent_run_id
          WHERE c.parent_run_id IS NOT NULL AND (p.run_id IS NULL OR c.root_run_id <> p.root_run_id OR c.lineage_kind IS NULL)`,
  },
  {
    rule: 'a restart carries a 32-byte fingerprint and its parent restart number + 1',
    sql: `SELECT c.run_id FROM runs c JOIN runs p ON p.run_id = c.parent_run_id WHERE c.lineage_kind = 'restart'
            AND (c.parent_terminal_fingerprint IS NULL OR length(c.parent_terminal_fingerprint) <> 32
              OR c.restart_number <> p.restart_number + 1)`,
  },
  {
    rule: "a continuation has no fingerprint and keeps its parent's restart number",
    sql: `SELECT c.run_id FROM runs c JOIN runs p ON p.run_id = c.parent_run_id WHERE c.lineage_kind = 'continuation'
            AND (c.parent_terminal_fingerprint IS NOT NULL OR c.restart_number <> p.restart_number)`,
  },
  {
    rule: 'a root run id names a root run',
    sql: `SELECT c.run_id FROM runs c LEFT JOIN runs r ON r.run_id = c.root_run_id
          WHERE r.run_id IS NULL OR r.parent_run_id IS NOT NULL`,
  },
  {
    rule: 'at most one restart and one continuation child per parent',
    sql: `SELECT parent_run_id, lineage_kind, count(*) AS n FROM runs WHERE parent_run_id IS NOT NULL
          GROUP BY parent_run_id, lineage_kind HAVING count(*) > 1`,
  },
  {
    rule: 'at most one active queue entry per origin session',
    sql: `SELECT origin_session_id, count(*) AS n FROM run_queue WHERE status IN ${ACTIVE_QUEUE}
          GROUP BY origin_session_id HAVING count(*) > 1`,
  },
  {
    rule: 'every run has its resource, lease, queue row, binding, viewer row and root source',
    sql: `SELECT r.run_id FROM runs r
          WHERE NOT EXISTS (SELECT 1 FROM resources x WHERE x.resource_id = r.resource_id AND x.resource_type = 'run'
                              AND x.aggregate_key = r.run_id)
             OR NOT EXISTS (SELECT 1 FROM leases l WHERE l.resource_id = r.resource_id)
             OR NOT EXISTS (SELECT 1 FROM run_queue q WHERE q.run_id = r.run_id)
             OR NOT EXISTS (SELECT 1 FROM run_bindings b WHERE b.run_id = r.run_id)
             OR NOT EXISTS (SELECT 1 FROM viewer_runs v WHERE v.run_id = r.run_id)
             OR NOT EXISTS (SELECT 1 FROM run_sources s WHERE s.run_id = r.run_id AND s.mount_path = '')`,
  },
  {
    rule: 'lease owner fields are all NULL or all set',
    sql: `SELECT resource_id FROM leases WHERE NOT ((${OWNER_COLUMNS.map((c) => `${c} IS NULL`).join(' AND ')})
            OR (${OWNER_COLUMNS.map((c) => `${c} IS NOT NULL`).join(' AND ')}))`,
  },
  {
    rule: 'lease generation >= number of lease.claimed events',
    sql: `SELECT l.resource_id, l.generation,
            (SELECT count(*) FROM events e WHERE e.resource_id = l.resource_id AND e.event_type = 'lease.claimed') AS claims
          FROM leases l
          WHERE l.generation < (SELECT count(*) FROM events e WHERE e.resource_id = l.resource_id AND e.event_type = 'lease.claimed')`,
  },
  {
    rule: 'a finished queue entry holds no lease',
    sql: `SELECT q.run_id FROM run_queue q JOIN runs r ON r.run_id = q.run_id JOIN leases l ON l.resource_id = r.resource_id
          WHERE q.status IN ${TERMINAL_QUEUE} AND l.owner_id IS NOT NULL`,
  },
  {
    rule: "events' resource_revision is exactly 1..revision per resource",
    sql: `SELECT x.resource_id, x.revision, count(e.event_seq) AS n, min(e.resource_revision) AS lo, max(e.resource_revision) AS hi
          FROM resources x LEFT JOIN events e ON e.resource_id = x.resource_id
          GROUP BY x.resource_id
          HAVING n <> x.revision OR (n > 0 AND (lo <> 1 OR hi <> x.revision))`,
  },
  {
    rule: 'viewer revisions are contiguous from max(2, retained_from) to presentation_revision',
    sql: `SELECT v.run_id, v.presentation_revision, v.retained_from_revision, count(DISTINCT d.presentation_revision) AS n,
            min(d.presentation_revision) AS lo, max(d.presentation_revision) AS hi
          FROM viewer_runs v LEFT JOIN viewer_deltas d ON d.run_id = v.run_id
          GROUP BY v.run_id
          HAVING v.retained_from_revision < 1 OR v.retained_from_revision > v.presentation_revision
            OR v.retained_from_revision <> max(1, v.presentation_revision - 255)
            OR n <> max(0, v.presentation_revision - max(2, v.retained_from_revision) + 1)
            OR (n > 0 AND (lo <> max(2, v.retained_from_revision) OR hi <> v.presentation_revision))`,
  },
  {
    rule: 'delta indexes are 0..n-1 within each viewer revision',
    sql: `SELECT run_id, presentation_revision FROM viewer_deltas GROUP BY run_id, presentation_revision
          HAVING min(delta_index) <> 0 OR max(delta_index) <> count(*) - 1`,
  },
  {
    rule: 'finished_at is set exactly for waiting and terminal runs',
    sql: `SELECT run_id FROM runs WHERE (finished_at IS NULL) <> (status IN ('queued', 'running'))`,
  },
];

/**
 * Checks `PRAGMA integrity_check`, `PRAGMA foreign_key_check` and every
 * {@link INVARIANT_QUERIES} rule inside one read transaction.
 *
 * @returns the violations (empty when the database is sound)
 */
export function checkStoreInvariants(connection: SqliteDatabase): InvariantViolation[] {
  const violations: InvariantViolation[] = [];
  const read = connection.transaction(() => {
    const integrity = connection.pragma('integrity_check') as Array<{ integrity_check: string }>;
    if (integrity.length !== 1 || integrity[0]?.integrity_check !== 'ok') violations.push({ rule: 'PRAGMA integrity_check', rows: integrity });
    const foreignKeys = connection.pragma('foreign_key_check') as unknown[];
    if (foreignKeys.length > 0) violations.push({ rule: 'PRAGMA foreign_key_check', rows: foreignKeys.slice(0, 10) });
    for (const { rule, sql } of INVARIANT_QUERIES) {
      const rows = connection.prepare(sql).all();
      if (rows.length > 0) violations.push({ rule, rows: rows.slice(0, 10) });
    }
  });
  read.deferred();
  return violations;
}
