/**
 * Persisted operations: `--persisted-operations <manifest.json>` serves the
 * operations of a manifest by id, `--only-persisted` refuses every other operation (typical for a
 * shared deployment: clients can run only what was reviewed and shipped).
 *
 * The manifest is what `npm run codegen` writes for `schema/operations/`
 * (`schema/generated/persisted-documents.json`, client preset `persistedDocuments`): a JSON
 * object from id (`sha256:<hex>`, the SHA-256 of the document text) to document text. A client
 * sends an id instead of `query`, either as GraphQL over HTTP's `documentId` or as Apollo's
 * `extensions.persistedQuery` (`{ version: 1, sha256Hash: <hex> }`). HTTP and yoga's SSE go
 * through yoga's maintained plugin `@graphql-yoga/plugin-persisted-operations`; graphql-ws and
 * graphql-sse's single-connection mode, which hand their params to yoga's envelop themselves,
 * resolve them with {@link PersistedOperations.resolve}: one rule for every transport.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GraphQLError, parse, validate, type GraphQLSchema } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';

/** The id prefix of the manifest's keys (codegen's `hashAlgorithm: 'sha256'`). */
const SHA256_PREFIX = 'sha256:';

/** Error texts, one per refusal (also the messages clients see). */
export const PERSISTED_ERRORS = {
  notFound: 'Persisted operation not found: this server runs only the operations of its manifest (--persisted-operations).',
  onlyPersisted: 'This server runs only persisted operations (--only-persisted): send documentId (or extensions.persistedQuery) instead of query.',
  idRequired: 'Send query, or the id of a persisted operation as documentId (or extensions.persistedQuery.sha256Hash).',
} as const;

/** The loaded manifest and the rule for operations outside it. */
export interface PersistedOperations {
  /** Number of operations in the manifest. */
  readonly size: number;
  /** True when every operation must come from the manifest (`--only-persisted`). */
  readonly onlyPersisted: boolean;
  /** The document text of a persisted id (`sha256:<hex>` or `<hex>`, any case), or undefined. */
  get(id: string): string | undefined;
  /**
   * The document text to run for one operation's params, for transports that parse it
   * themselves (graphql-ws, graphql-sse single-connection mode). A non-empty `query` is run
   * as it is unless only persisted operations are allowed; else the id (`documentId`, or
   * `extensions.persistedQuery.sha256Hash`) is looked up.
   *
   * @returns the text, or the GraphQLError to answer the operation with (codes
   *   `PERSISTED_QUERY_ONLY`, `PERSISTED_QUERY_NOT_FOUND`, `PERSISTED_QUERY_ID_REQUIRED`)
   */
  resolve(params: { query?: unknown; documentId?: unknown; extensions?: unknown }): string | GraphQLError;
  /** yoga's persisted-operations plugin over this manifest (HTTP, yoga's SSE). */
  plugin(): Plugin;
}

/** Lower-case hex of an id given as `sha256:<hex>` or `<hex>`; undefined when it is neither. */
function normaliseId(id: string): string | undefined {
  const hex = (id.toLowerCase().startsWith(SHA256_PREFIX) ? id.slice(SHA256_PREFIX.length) : id).toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : undefined;
}

/** The persisted-operation id of params: `documentId`, else Apollo's `extensions.persistedQuery`; null when absent. */
export function persistedOperationIdOf(params: { documentId?: unknown; extensions?: unknown }): string | null {
  if (typeof params.documentId === 'string') return params.documentId;
  const persistedQuery = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  if (persistedQuery?.version === 1 && typeof persistedQuery.sha256Hash === 'string') return persistedQuery.sha256Hash;
  return null;
}

/** A refusal for the transports outside yoga's HTTP pipeline (no `extensions.http`: nothing strips it there). */
function refusal(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/**
 * Reads and checks a manifest: a JSON object whose keys are `sha256:<hex>` (or `<hex>`) ids and
 * whose values are GraphQL documents that parse, validate against `schema`, and hash to their id
 * (SHA-256 of the text as stored).
 *
 * @param path the manifest file
 * @param schema the server's schema (a manifest built for another schema is refused at start)
 * @throws Error naming the file and the first problem: unreadable, not JSON, not an object of
 *   strings, an id that is not a SHA-256, a text that does not hash to its id, a document that
 *   does not parse or validate
 */
export function loadPersistedOperations(path: string, schema: GraphQLSchema, options: { onlyPersisted: boolean }): PersistedOperations {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new Error(`persisted operations manifest ${path}: ${reason}`);
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    throw new Error(
      `persisted operations manifest ${path}: expected a JSON object of id → document (npm run codegen writes schema/generated/persisted-documents.json)`,
    );
  }
  const documents = new Map<string, string>();
  for (const [id, text] of Object.entries(manifest)) {
    const hex = normaliseId(id);
    if (hex === undefined) throw new Error(`persisted operations manifest ${path}: id "${id.slice(0, 80)}" is not sha256:<64 hex digits>`);
    if (typeof text !== 'string') throw new Error(`persisted operations manifest ${path}: the document of ${id} is not a string`);
    if (createHash('sha256').update(text).digest('hex') !== hex) {
      throw new Error(`persisted operations manifest ${path}: the document of ${id} does not hash to its id (SHA-256 of the text)`);
    }
    let errors: readonly GraphQLError[];
    try {
      errors = validate(schema, parse(text));
    } catch (error) {
      errors = [error as GraphQLError];
    }
    if (errors.length > 0) {
      throw new Error(`persisted operations manifest ${path}: the document of ${id} does not match this server's schema: ${errors[0]?.message ?? ''}`);
    }
    documents.set(hex, text);
  }
  const get = (id: string): string | undefined => {
    const hex = normaliseId(id);
    return hex === undefined ? undefined : documents.get(hex);
  };
  return {
    size: documents.size,
    onlyPersisted: options.onlyPersisted,
    get,
    resolve(params) {
      if (typeof params.query === 'string' && params.query !== '') {
        return options.onlyPersisted ? refusal(PERSISTED_ERRORS.onlyPersisted, 'PERSISTED_QUERY_ONLY') : params.query;
      }
      const id = persistedOperationIdOf(params);
      if (id === null) return refusal(PERSISTED_ERRORS.idRequired, 'PERSISTED_QUERY_ID_REQUIRED');
      return get(id) ?? refusal(PERSISTED_ERRORS.notFound, 'PERSISTED_QUERY_NOT_FOUND');
    },
    plugin() {
      return usePersistedOperations({
        getPersistedOperation: (id) => get(id) ?? null,
        allowArbitraryOperations: !options.onlyPersisted,
        // yoga reads only query, variables, operationName and extensions from a GET's URL.
        extractPersistedOperationId: (params: GraphQLParams & { documentId?: unknown }, request: Request) =>
          persistedOperationIdOf(params) ?? (request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null),
        customErrors: {
          notFound: { message: PERSISTED_ERRORS.notFound, extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } } },
          persistedQueryOnly: { message: PERSISTED_ERRORS.onlyPersisted, extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 400 } } },
          keyNotFound: { message: PERSISTED_ERRORS.idRequired, extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', http: { status: 400 } } },
        },
      }) as Plugin;
    },
  };
}

/**
 * The persisted operations of `--persisted-operations <manifest>` (and `--only-persisted`),
 * read before the database opens: a bad manifest stops the start with nothing to clean up.
 *
 * @returns undefined when no manifest is configured
 * @throws Error for a manifest that cannot be used (see {@link loadPersistedOperations})
 */
export function persistedOperationsFor(
  config: { persistedOperations?: string | null; onlyPersisted?: boolean },
  schema: GraphQLSchema,
): PersistedOperations | undefined {
  if (config.persistedOperations == null) return undefined;
  return loadPersistedOperations(config.persistedOperations, schema, { onlyPersisted: config.onlyPersisted === true });
}
