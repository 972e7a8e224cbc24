/**
 * GraphQL over HTTP for the typed client: one POST per operation with `fetch`, the bearer token,
 * and typed results (docs/IDE.md "The typed client"). No Node module: runs in browsers too.
 */
import type { TypedDocumentString } from '../../schema/generated/graphql.js';
import { networkCause, WorkflowClientError, type GraphQLErrorLike } from './errors.js';

/** What {@link postOperation} needs. */
export interface HttpTarget {
  /** `http(s)://host:port/graphql`. */
  url: string;
  /** `Authorization` value (`Bearer <token>`), or undefined for none. */
  authorization: string | undefined;
  fetch: typeof fetch;
}

/** Name of the first operation of a document, or undefined (sent as `operationName`). */
export function operationNameOf(query: string): string | undefined {
  return /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(query)?.[1];
}

/**
 * Sends one typed operation and returns its `data`.
 *
 * @throws WorkflowClientError `network` (unreachable: says which server and why), `unauthorized`
 *   (401), `http` (not a GraphQL answer), `graphql` (the answer carries errors: their messages
 *   joined by `; `, the list in `errors`)
 */
export async function postOperation<TResult, TVariables>(
  target: HttpTarget,
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  signal?: AbortSignal,
): Promise<TResult> {
  const query = document.toString();
  const operationName = operationNameOf(query);
  let response: Response;
  try {
    response = await target.fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(target.authorization === undefined ? {} : { authorization: target.authorization }),
      },
      body: JSON.stringify({ query, variables: variables ?? {}, ...(operationName === undefined ? {} : { operationName }) }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new WorkflowClientError('network', `cannot reach the server at ${target.url} (${networkCause(error)})`, { cause: error });
  }
  const text = await response.text();
  let body: { data?: TResult | null; errors?: GraphQLErrorLike[] } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (response.status === 401) {
    const said = body?.errors?.[0]?.message;
    throw new WorkflowClientError(
      'unauthorized',
      `the server at ${target.url} refused the request (401${said === undefined ? '' : `: ${said}`}): ${
        target.authorization === undefined ? 'it needs a token: pass `token`' : 'the token is not one the server accepts'
      }`,
      { status: 401 },
    );
  }
  if (body === undefined || typeof body !== 'object' || body === null) {
    throw new WorkflowClientError('http', `HTTP ${response.status} from ${target.url} is not a GraphQL answer: is the URL the server's /graphql endpoint?`, {
      status: response.status,
    });
  }
  // Content hidden from a metadata-scope token is no failure: its values are null, the rest is there.
  const failures = (body.errors ?? []).filter((error) => !isContentHidden(error));
  if (failures.length > 0) {
    throw new WorkflowClientError('graphql', failures.map((error) => error.message).join('; '), { status: response.status, errors: failures });
  }
  if (body.data === undefined || body.data === null) {
    throw new WorkflowClientError('http', `HTTP ${response.status} from ${target.url} carries no data`, { status: response.status });
  }
  return body.data;
}

/**
 * Whether a failed request may succeed later without any change on the caller's side: no answer
 * (`network`), or 502, 503, 504 (a proxy or a server starting or stopping).
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof WorkflowClientError)) return false;
  return error.kind === 'network' || [502, 503, 504].includes(error.details.status ?? 0);
}

/** How {@link retrying} tries again (the client's `retry` option for one request). */
export interface RequestRetry {
  /** False once the answer is no longer wanted: the retries stop with an `aborted` error. */
  isCurrent?: () => boolean;
  /** Told before each wait: the failure and the wait in ms. */
  onRetry?: (error: WorkflowClientError, delayMs: number) => void;
}

/**
 * Runs `attempt` until it succeeds or fails for good: a {@link isTransient} failure waits
 * `delayMs(retries)` — or until `wake` resolves (the WebSocket connected again), whichever comes
 * first — and tries again. `setTimer`/`clearTimer`: default setTimeout/clearTimeout (a test's
 * hand-fired timers).
 *
 * @throws the first failure that is not transient; WorkflowClientError `aborted` once
 *   `isCurrent()` is false
 */
export async function retrying<T>(
  attempt: () => Promise<T>,
  { isCurrent = () => true, onRetry }: RequestRetry,
  delayMs: (retries: number) => number,
  wake: () => Promise<unknown>,
  setTimer: (callback: () => void, ms: number) => unknown = setTimeout,
  clearTimer: (timer: unknown) => void = (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
): Promise<T> {
  const aborted = (): WorkflowClientError => new WorkflowClientError('aborted', 'the answer is no longer wanted');
  for (let retries = 0; ; retries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error)) throw error;
      if (!isCurrent()) throw aborted();
      const delay = delayMs(retries);
      onRetry?.(error as WorkflowClientError, delay);
      await new Promise((resolve) => {
        const timer = setTimer(() => resolve(undefined), delay);
        void wake().then(() => {
          clearTimer(timer);
          resolve(undefined);
        });
      });
      if (!isCurrent()) throw aborted();
    }
  }
}

/**
 * Whether a GraphQL error only says that a value is content a metadata-scope token may not read
 * (`extensions.reason` `METADATA_SCOPE`, docs/OPERATIONS.md "Security"): the value is null and
 * the answer is otherwise whole, so a request does not fail on it.
 */
export function isContentHidden(error: { extensions?: Record<string, unknown> }): boolean {
  return error.extensions?.reason === 'METADATA_SCOPE';
}
