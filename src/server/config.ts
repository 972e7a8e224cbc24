import { Command, InvalidArgumentError, Option } from 'commander';
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { piWorkflowsDefaultDirectory } from './database/new-database.js';
import { parseAllowedHost, parseCorsOrigin } from './http/request-policy.js';
import { tracingSettingsFromEnv, type TracingSettings } from './ops/tracing.js';

/** Server settings; every option but `--pi` has an environment equivalent (CLI wins). */
export interface ServerConfig {
  /** SQLite file; created with its migrations on first start. */
  dbPath: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Bind address; loopback by default (docs/GRAPHQL-CONTRACT.md "Access"). */
  host: string;
  /** Open the database read-only: every mutation answers ForbiddenError. */
  readOnly: boolean;
  /** Bearer token required on HTTP and in the WebSocket connection_init payload; null = none. */
  token: string | null;
  /**
   * Read-only bearer tokens (`--read-token`): queries and subscriptions, no
   * mutation; default none. With read tokens but no `token`, every request needs a read token
   * and nothing can be written over GraphQL.
   */
  readTokens?: readonly string[];
  /**
   * Metadata bearer tokens (`--metadata-token`): like a read token, but the content of runs
   * (prompts, outputs, payloads, the conversation) answers null with a FORBIDDEN error; default none.
   */
  metadataTokens?: readonly string[];
  /** Browser origins allowed besides the server's own (`--cors-origin`); default none. */
  corsOrigins?: readonly string[];
  /** Host names answered besides the bound address and loopback names (`--allowed-host`); default none. */
  allowedHosts?: readonly string[];
  /** Project directory runs are reserved under (docs/STORE-RULES.md §13.5). */
  projectPath: string;
  /** Cross-process change watcher poll interval in ms (PRAGMA data_version). */
  pollIntervalMs: number;
  /** graphql-ws ping interval, in ms (SSE keep-alive comments come from yoga every 12 s). */
  keepAliveMs: number;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /**
   * Manifest of persisted operations (`--persisted-operations`): a JSON object
   * of `sha256:<hex>` id → document, as `npm run codegen` writes it; null/absent = none.
   */
  persistedOperations?: string | null;
  /** Refuse every operation that is not in the manifest (`--only-persisted`); needs {@link persistedOperations}. */
  onlyPersisted?: boolean;
  /**
   * `@live` queries: at most one re-execution per live query per this many ms
   * (`--live-throttle-ms`); default {@link DEFAULT_LIVE_THROTTLE_MS}. A client's
   * `@live(throttle:)` may ask for a longer window, never a shorter one.
   */
  liveThrottleMs?: number;
  /**
   * Most `@live` queries one connection holds at once (`--max-live-queries`; a graphql-ws
   * socket, a graphql-sse stream); default {@link DEFAULT_MAX_LIVE_QUERIES}.
   */
  maxLiveQueriesPerConnection?: number;
  /**
   * OpenTelemetry tracing over OTLP/HTTP (docs/TRACING.md): null/absent = off (the default); on
   * with `--otel` or the `OTEL_*` variables (see `tracingSettingsFromEnv`).
   */
  tracing?: TracingSettings | null;
  /**
   * Replica mode (`--replica <primary URL>`, docs/DEPLOYMENT.md "Read replicas"): serve a
   * read-only copy of the primary's own file that another tool keeps up to date, following
   * commits applied in place and reopening the file when a copy is renamed over it; every
   * mutation answers ForbiddenError naming this URL. Null/absent: not a replica. Implies
   * {@link readOnly}.
   */
  replica?: string | null;
  /** Bearer token for the primary's `/health` (`--primary-token`), or null/absent for none. */
  primaryToken?: string | null;
  /** How often a replica reads the primary's `/health`, ms (`--replica-poll-ms`); default 1000. */
  replicaPollMs?: number;
  /**
   * Server processes on the one port and database file (`--workers`, docs/OPERATIONS.md
   * "Workers"); default {@link defaultWorkers} (the cores). 1 = one process, no cluster; an
   * in-memory database and replica mode always run one process (see `singleProcessReason`).
   */
  workers?: number;
  /** pino log level. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** Default of {@link ServerConfig.liveThrottleMs}, in ms. */
export const DEFAULT_LIVE_THROTTLE_MS = 250;

/** Default of {@link ServerConfig.maxLiveQueriesPerConnection}. */
export const DEFAULT_MAX_LIVE_QUERIES = 50;

/** Default database file, relative to the working directory. */
export const DEFAULT_DB_PATH = 'data/pi-workflows.db';

/**
 * The file `--pi` serves: pi-workflows' own state file at the place pi-workflows puts it,
 * `~/.pi/agent/workflows/state.sqlite` under the user's home directory (`os.homedir()`).
 */
export function piStateFilePath(home?: string): string {
  return join(piWorkflowsDefaultDirectory(home), 'state.sqlite');
}

/** Default of {@link ServerConfig.workers}: the cores this process may use (`os.availableParallelism()`). */
export function defaultWorkers(): number {
  return availableParallelism();
}

/** Most `--workers`. */
export const MAX_WORKERS = 256;

/** Parses `--replica`: an absolute http(s) URL. */
function primaryUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError("must be the primary server's URL, e.g. http://primary:4000/graphql");
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('must be an http:// or https:// URL');
  return value;
}

function integer(min: number, max: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    }
    return parsed;
  };
}

/**
 * The parser of a repeatable option whose values may also be comma-separated (so its
 * environment variable can hold several): each value goes through `parse` and is appended.
 */
function list(parse: (value: string) => string) {
  return (value: string, previous: string[]): string[] => {
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
    try {
      return previous.concat(items.map(parse));
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

/**
 * Reads a boolean environment variable: `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`/empty
 * (any case); unset is false.
 *
 * @throws exits with a usage error (commander) for any other value
 */
function envFlag(name: string, program: Command): boolean {
  const value = process.env[name];
  if (value === undefined) return false;
  const normalized = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(normalized)) return false;
  program.error(`error: environment variable ${name} must be true or false, got "${value}"`);
}

/**
 * The database file of `--pi` ({@link piStateFilePath}), checked: `--pi` names the file, so
 * `--db` on the command line as well is refused (`PI_WORKFLOWS_DB` in the environment is not:
 * the command line wins), and a missing file is an error rather than a new, empty database.
 *
 * @throws exits with a one-line usage error (commander) when `--db` is given too or no file is there
 */
function piStateFile(program: Command): string {
  if (program.getOptionValueSource('db') === 'cli') {
    program.error(`error: --pi and --db both name the database: use one (--pi is --db ${piStateFilePath()})`);
  }
  const file = piStateFilePath();
  if (statSync(file, { throwIfNoEntry: false }) === undefined) {
    program.error(`error: --pi: no pi-workflows state file at ${file} (pi-workflows creates it on its first run; --db <path> names another file)`);
  }
  return file;
}

/**
 * Parses the command line (and environment) into a {@link ServerConfig}.
 *
 * @param argv full process argv (`process.argv`); environment variables come from `process.env`
 * @throws exits the process with usage text for `--help` or bad options (commander)
 */
export function parseServerConfig(argv: string[]): ServerConfig {
  const program = new Command()
    .name('pi-workflows-graphql')
    .description(
      'GraphQL API over the SQLite state store of durable pi-workflows runs.\n' +
        'Serves GraphQL (POST/GET), GraphiQL, Server-Sent Events and graphql-ws on one port at /graphql.',
    )
    .addOption(new Option('--db <path>', 'SQLite database file (created on first start)').env('PI_WORKFLOWS_DB').default(DEFAULT_DB_PATH))
    .addOption(new Option('--pi', `serve your pi-workflows state file where pi-workflows keeps it (${piStateFilePath()}); it must exist; not with --db`))
    .addOption(new Option('--port <port>', 'TCP port (0 = any free port)').env('PORT').default(4000).argParser(integer(0, 65535)))
    .addOption(new Option('--host <address>', 'bind address').env('HOST').default('127.0.0.1'))
    .addOption(new Option('--read-only', 'open the database read-only; mutations answer ForbiddenError (env PI_WORKFLOWS_READ_ONLY=true|false)'))
    .addOption(new Option('--token <token>', 'require "Authorization: Bearer <token>" (WebSocket: connection_init {authorization})').env('PI_WORKFLOWS_TOKEN'))
    .addOption(
      new Option(
        '--read-token <token>',
        'also accept this token for queries and subscriptions only; its mutations answer ForbiddenError (repeatable; comma-separated in the environment)',
      )
        .env('PI_WORKFLOWS_READ_TOKENS')
        .default([], 'none')
        .argParser(list((value) => value)),
    )
    .addOption(
      new Option(
        '--metadata-token <token>',
        "like --read-token, but runs' content (prompts, outputs, payloads, the conversation) answers null with FORBIDDEN (repeatable; comma-separated in the environment)",
      )
        .env('PI_WORKFLOWS_METADATA_TOKENS')
        .default([], 'none')
        .argParser(list((value) => value)),
    )
    .addOption(
      new Option(
        '--cors-origin <origin>',
        'also allow browser requests from this origin, exactly as the browser sends it (repeatable; comma-separated in the environment)',
      )
        .env('PI_WORKFLOWS_CORS_ORIGINS')
        .default([], "the server's own origin only")
        .argParser(list(parseCorsOrigin)),
    )
    .addOption(
      new Option('--allowed-host <name>', 'also answer requests for this host name (repeatable; comma-separated in the environment)')
        .env('PI_WORKFLOWS_ALLOWED_HOSTS')
        .default([], 'the bound address, localhost, 127.0.0.1, [::1]')
        .argParser(list(parseAllowedHost)),
    )
    .addOption(
      new Option('--project <path>', 'project directory runs are reserved under').env('PI_WORKFLOWS_PROJECT').default(process.cwd(), 'the working directory'),
    )
    .addOption(
      new Option('--poll-interval-ms <ms>', 'how often to look for commits by other processes')
        .env('PI_WORKFLOWS_POLL_INTERVAL_MS')
        .default(25)
        .argParser(integer(1, 60_000)),
    )
    .addOption(
      new Option('--keep-alive-ms <ms>', 'graphql-ws ping interval (SSE sends keep-alive comments every 12 s)')
        .env('PI_WORKFLOWS_KEEP_ALIVE_MS')
        .default(12_000)
        .argParser(integer(100, 600_000)),
    )
    .addOption(
      new Option('--max-body-bytes <bytes>', 'largest accepted request body, with a Content-Length or chunked; larger ones get 413')
        .env('PI_WORKFLOWS_MAX_BODY_BYTES')
        .default(2_097_152)
        .argParser(integer(1024, 1_073_741_824)),
    )
    .addOption(
      new Option(
        '--persisted-operations <manifest.json>',
        'serve the operations of this manifest by id (npm run codegen writes schema/generated/persisted-documents.json)',
      ).env('PI_WORKFLOWS_PERSISTED_OPERATIONS'),
    )
    .addOption(
      new Option(
        '--live-throttle-ms <ms>',
        '@live queries: at most one re-execution and push per live query per this many ms (changes in between are coalesced)',
      )
        .env('PI_WORKFLOWS_LIVE_THROTTLE_MS')
        .default(DEFAULT_LIVE_THROTTLE_MS)
        .argParser(integer(0, 600_000)),
    )
    .addOption(
      new Option('--max-live-queries <n>', '@live queries one connection (graphql-ws socket, SSE stream) may hold at once; more are refused')
        .env('PI_WORKFLOWS_MAX_LIVE_QUERIES')
        .default(DEFAULT_MAX_LIVE_QUERIES)
        .argParser(integer(1, 100_000)),
    )
    .addOption(
      new Option(
        '--replica <primary URL>',
        "serve a read-only copy of the primary's file kept up to date by another tool (Litestream); mutations answer ForbiddenError naming this URL (docs/DEPLOYMENT.md)",
      )
        .env('PI_WORKFLOWS_REPLICA')
        .argParser(primaryUrl),
    )
    .addOption(new Option('--primary-token <token>', "a replica's bearer token for the primary's /health (its position)").env('PI_WORKFLOWS_PRIMARY_TOKEN'))
    .addOption(
      new Option('--replica-poll-ms <ms>', "how often a replica reads the primary's /health to measure its lag")
        .env('PI_WORKFLOWS_REPLICA_POLL_MS')
        .default(1_000)
        .argParser(integer(100, 600_000)),
    )
    .addOption(new Option('--only-persisted', 'run only the operations of the manifest, refuse any other query (env PI_WORKFLOWS_ONLY_PERSISTED=true|false)'))
    .addOption(
      new Option(
        '--otel',
        'export OpenTelemetry traces over OTLP/HTTP (default endpoint http://localhost:4318; OTEL_EXPORTER_OTLP_ENDPOINT, ' +
          'OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf|http/json, OTEL_SERVICE_NAME; setting an OTLP endpoint or ' +
          'OTEL_TRACES_EXPORTER=otlp turns it on too, OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true off; ' +
          'env PI_WORKFLOWS_OTEL=true|false; see docs/TRACING.md)',
      ),
    )
    .addOption(
      new Option('--workers <n>', 'server processes sharing the port and the database file (1 = one process; docs/OPERATIONS.md "Workers")')
        .env('PI_WORKFLOWS_WORKERS')
        .default(defaultWorkers(), 'the number of cores')
        .argParser(integer(1, MAX_WORKERS)),
    )
    .addOption(
      new Option('--log-level <level>', 'log level').env('LOG_LEVEL').default('info').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    )
    .addHelpText(
      'after',
      '\nEnvironment variables: PI_WORKFLOWS_DB, PORT, HOST, PI_WORKFLOWS_READ_ONLY, PI_WORKFLOWS_TOKEN, PI_WORKFLOWS_READ_TOKENS,\n' +
        'PI_WORKFLOWS_METADATA_TOKENS, ' +
        'PI_WORKFLOWS_CORS_ORIGINS, PI_WORKFLOWS_ALLOWED_HOSTS, PI_WORKFLOWS_PROJECT, PI_WORKFLOWS_POLL_INTERVAL_MS,\n' +
        'PI_WORKFLOWS_KEEP_ALIVE_MS, PI_WORKFLOWS_MAX_BODY_BYTES, PI_WORKFLOWS_PERSISTED_OPERATIONS, PI_WORKFLOWS_ONLY_PERSISTED,\n' +
        'PI_WORKFLOWS_LIVE_THROTTLE_MS, PI_WORKFLOWS_MAX_LIVE_QUERIES, PI_WORKFLOWS_OTEL, PI_WORKFLOWS_REPLICA, PI_WORKFLOWS_PRIMARY_TOKEN,\n' +
        'PI_WORKFLOWS_REPLICA_POLL_MS, PI_WORKFLOWS_WORKERS, LOG_LEVEL; the standard OTEL_* variables (tracing, docs/TRACING.md).\n\n' +
        "Browsers: only pages from the server's own origin may call it, and only for the host names it answers\n" +
        '(see docs/OPERATIONS.md "Security").\n\n' +
        'Examples (the npm package: npx pi-workflows-graphql [options]; a clone: npm start -- [options]):\n' +
        '  npx pi-workflows-graphql --pi\n  npm start\n  npm start -- --db /tmp/state.db --port 4001\n  npm start -- --read-only --token s3cret\n' +
        '  npm start -- --persisted-operations schema/generated/persisted-documents.json --only-persisted\n' +
        '  npm start -- --token s3cret --read-token dashb0ard\n' +
        '  npm start -- --db /srv/replica.db --replica http://primary:4000/graphql\n' +
        '  npm start -- --workers 1\n' +
        '  npm start -- --cors-origin http://localhost:5173\n  npm start -- --host 0.0.0.0 --allowed-host my-box.local --token s3cret',
    );
  program.parse(argv);
  const options = program.opts<{
    db: string;
    pi?: boolean;
    port: number;
    host: string;
    readOnly?: boolean;
    token?: string;
    readToken: string[];
    metadataToken: string[];
    corsOrigin: string[];
    allowedHost: string[];
    project: string;
    pollIntervalMs: number;
    keepAliveMs: number;
    maxBodyBytes: number;
    liveThrottleMs: number;
    maxLiveQueries: number;
    logLevel: ServerConfig['logLevel'];
    persistedOperations?: string;
    onlyPersisted?: boolean;
    otel?: boolean;
    replica?: string;
    primaryToken?: string;
    replicaPollMs: number;
    workers: number;
  }>();
  const dbPath = options.pi === true ? piStateFile(program) : options.db === ':memory:' ? options.db : resolve(options.db);
  const onlyPersisted = options.onlyPersisted === true || envFlag('PI_WORKFLOWS_ONLY_PERSISTED', program);
  const persistedOperations = options.persistedOperations === undefined || options.persistedOperations === '' ? null : resolve(options.persistedOperations);
  if (onlyPersisted && persistedOperations === null) {
    program.error('error: --only-persisted needs --persisted-operations <manifest.json> (the operations to allow)');
  }
  const replica = options.replica === undefined || options.replica === '' ? null : options.replica;
  if (replica !== null && dbPath === ':memory:') program.error('error: --replica needs a database file (--db <path>), not :memory:');
  if (replica === null && options.primaryToken !== undefined && options.primaryToken !== '') {
    program.error("error: --primary-token goes with --replica <primary URL> (it is the token for the primary's /health)");
  }
  const readOnly = replica !== null || options.readOnly === true || envFlag('PI_WORKFLOWS_READ_ONLY', program);
  let tracing: TracingSettings | null = null;
  try {
    tracing = tracingSettingsFromEnv(options.otel === true || envFlag('PI_WORKFLOWS_OTEL', program));
  } catch (error) {
    program.error(`error: ${(error as Error).message}`);
  }
  const token = options.token === undefined || options.token === '' ? null : options.token;
  // The message never quotes a token: command-line errors end up in logs.
  if (token !== null && options.readToken.includes(token)) program.error('error: a --read-token must differ from --token');
  if (token !== null && options.metadataToken.includes(token)) program.error('error: a --metadata-token must differ from --token');
  if (options.metadataToken.some((value) => options.readToken.includes(value))) program.error('error: a --metadata-token must differ from every --read-token');
  return {
    dbPath,
    port: options.port,
    host: options.host,
    readOnly,
    token,
    readTokens: [...new Set(options.readToken)],
    metadataTokens: [...new Set(options.metadataToken)],
    corsOrigins: options.corsOrigin,
    allowedHosts: options.allowedHost,
    projectPath: resolve(options.project),
    pollIntervalMs: options.pollIntervalMs,
    keepAliveMs: options.keepAliveMs,
    maxBodyBytes: options.maxBodyBytes,
    liveThrottleMs: options.liveThrottleMs,
    maxLiveQueriesPerConnection: options.maxLiveQueries,
    logLevel: options.logLevel,
    persistedOperations,
    onlyPersisted,
    tracing,
    replica,
    primaryToken: options.primaryToken === undefined || options.primaryToken === '' ? null : options.primaryToken,
    replicaPollMs: options.replicaPollMs,
    workers: options.workers,
  };
}
