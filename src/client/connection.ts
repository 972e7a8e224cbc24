/**
 * The typed client's one WebSocket (graphql-ws) shared by all its watches, with the retry policy
 * a watch needs to survive a server restart (docs/IDE.md "The typed client"):
 *
 * - every drop is retried, including the error event a refused connection produces (graphql-ws's
 *   default `shouldRetry` retries only close events, so a restart whose port is briefly closed
 *   ended every subscription with a bare `Event`); not a 4403 (the token was refused) nor the
 *   close codes graphql-ws itself treats as fatal (4400, 4401, 4406, 4409, 4429, 4500);
 * - `retryWait`: `initialDelayMs · 2^attempt` capped at `maxDelayMs` (default 250 ms doubling to 8 s),
 *   plus up to `jitterMs` of random delay (default 0; the live page uses 250 so pages
 *   reconnecting to a restarted server spread out), attempts unlimited by default
 *   ({@link retryDelayMs});
 * - `pongTimeoutMs`: a server that does not answer a ping within it is treated as gone (the
 *   socket is closed 4408 and retried; graphql-ws's pong-timeout recipe); default none;
 * - `lazy: false` connects at once and keeps the socket while no watch runs (the live page's
 *   status line shows the server's state); the default connects with the first watch;
 * - a subscription's variables are read again at every (re)subscribe, so a watch resumes from
 *   its last revision or cursor: graphql-ws re-sends the same payload object on each retry,
 *   whose `variables` is a getter here.
 *
 * No Node module: the WebSocket class is the `webSocketImpl` option or `globalThis.WebSocket`.
 */
import { createClient, type Client } from 'graphql-ws';
import { WorkflowClientError, type GraphQLErrorLike } from './errors.js';
import { isContentHidden } from './http.js';

/** Why the socket dropped: the close code and reason, and the last socket error's message. */
export interface DisconnectReason {
  /** WebSocket close code (1001: the server is shutting down; 1006: lost without a close frame). */
  code?: number;
  reason?: string;
  /** The socket error's message (Node's `ws`: `connect ECONNREFUSED 127.0.0.1:4000`; browsers give none). */
  message?: string;
  /** True when the message says the connection was refused (the server is down). */
  refused: boolean;
  /**
   * Whether the socket had opened before it failed. False for a server that is not there: a
   * browser's refused connection is a bare error `Event` with no message, this tells it apart.
   */
  opened: boolean;
}

/**
 * The connection's state, reported to `onStatus` listeners:
 * `connecting` (first attempt), `connected` (`reconnects`: successful reconnects so far),
 * `reconnecting` (before each retry: its number from 1, the wait in ms, why, and `failures`: the
 * sockets lost or refused since the last connect — the loss, then each refused attempt),
 * `closed` (no watch left, the client closed, or — `fatal` — a close no retry can heal: a
 * refused token, 4403, or a close code graphql-ws treats as fatal).
 */
export type ConnectionStatus =
  | { state: 'connecting' }
  | { state: 'connected'; reconnected: boolean; reconnects: number }
  | { state: 'reconnecting'; attempt: number; delayMs: number; reason: DisconnectReason; failures: number }
  | { state: 'closed'; reason?: DisconnectReason; fatal?: boolean };

/** Retry policy of the WebSocket. */
export interface RetryOptions {
  /** Retries in a row before a watch fails (default unlimited). */
  attempts?: number;
  /** Wait before the first retry, ms (default 250). */
  initialDelayMs?: number;
  /** Longest wait, ms (default 8000). */
  maxDelayMs?: number;
  /** Random delay added to each wait, up to this many ms (default 0). */
  jitterMs?: number;
}

/**
 * The wait before retry number `retries` (0 for the first after a loss), ms:
 * `min(initialDelayMs · 2^retries, maxDelayMs) + floor(random() · jitterMs)`.
 *
 * @param random in [0, 1) (default Math.random)
 */
export function retryDelayMs(retries: number, retry: Required<RetryOptions>, random: () => number = Math.random): number {
  return Math.min(retry.initialDelayMs * 2 ** retries, retry.maxDelayMs) + Math.floor(random() * retry.jitterMs);
}

/** The retry policy with its defaults filled in (unlimited attempts, 250 ms doubling to 8 s, no jitter). */
export function retryPolicy(retry: RetryOptions | undefined): Required<RetryOptions> {
  return {
    attempts: retry?.attempts ?? Number.POSITIVE_INFINITY,
    initialDelayMs: retry?.initialDelayMs ?? 250,
    maxDelayMs: retry?.maxDelayMs ?? 8_000,
    jitterMs: retry?.jitterMs ?? 0,
  };
}

/** What {@link Connection} needs. */
export interface ConnectionOptions {
  /** `ws(s)://host:port/graphql`. */
  url: string;
  /** `Authorization` value sent in `connection_init` (`{authorization}`), or undefined. */
  authorization: string | undefined;
  /** A WebSocket class; default `globalThis.WebSocket` (browsers, Node 22+). Node 20: `import WebSocket from 'ws'`. */
  webSocketImpl?: unknown;
  /** Reconnect policy (default: unlimited attempts, 250 ms doubling to 8 s, no jitter); also the waits of a request's `retry`. */
  retry?: RetryOptions;
  /** graphql-ws ping interval, ms (default 10000; 0 = none). */
  keepAliveMs?: number;
  /** A ping unanswered this long (ms) counts as a lost connection: closed 4408 and retried (default: none). */
  pongTimeoutMs?: number;
  /** False: connect at once and stay connected without a watch (default true: connect with the first watch, close after the last). */
  lazy?: boolean;
  /** A first status listener, added before anything connects (an eager socket's `connecting`). */
  onStatus?: (status: ConnectionStatus) => void;
}

/** A subscription's callbacks; `error` gets a {@link WorkflowClientError}. */
export interface ResumableSink<TData> {
  next(data: TData): void;
  error(error: WorkflowClientError): void;
  complete(): void;
  /** Called each time the subscribe message is sent (the first time and every resume). */
  sent?(): void;
}

/** Words for a drop: `the server is shutting down (1001 Going away)`, `the server is down (connection refused at <url>)`, …. */
export function describeDisconnect(reason: DisconnectReason, url: string): string {
  if (reason.code === 1001) return 'the server is shutting down (1001 Going away)';
  if (reason.refused) return `the server is down (connection refused at ${url})`;
  if (!reason.opened) return `the server cannot be reached at ${url}`;
  if (reason.code === undefined || reason.code === 1006) {
    return `the connection was lost${reason.message === undefined || reason.message === '' ? '' : ` (${reason.message})`}`;
  }
  return `connection closed (code ${reason.code}${reason.reason ? `, ${reason.reason}` : ''})`;
}

function isCloseEventLike(value: unknown): value is { code: number; reason?: string } {
  return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'number';
}

function messageOf(value: unknown): string | undefined {
  const message = (value as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && message !== '') return message;
  const inner = (value as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof inner === 'string' && inner !== '' ? inner : undefined;
}

/** The shared graphql-ws client, its status and the watches' subscriptions. */
export class Connection {
  /** The graphql-ws client, made when a watch first needs the socket (see {@link client}). */
  private socketClient: Client | undefined;
  private readonly listeners = new Set<(status: ConnectionStatus) => void>();
  private readonly connectedListeners = new Set<(reconnected: boolean) => void>();
  private readonly retry: Required<RetryOptions>;
  private active = 0;
  private everConnected = false;
  private announcedRetry = false;
  private lastReason: DisconnectReason = { refused: false, opened: false };
  private socketOpened = false;
  private lastStatus: ConnectionStatus = { state: 'closed' };
  private disposed = false;
  private readonly wakeRetry = new Set<() => void>();
  private readonly lazy: boolean;
  private reconnects = 0;
  private failures = 0;
  private socket: { readyState: number; close(code?: number, reason?: string): void } | undefined;
  private pongTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly options: ConnectionOptions) {
    this.retry = retryPolicy(options.retry);
    this.lazy = options.lazy ?? true;
    if (options.onStatus !== undefined) this.listeners.add(options.onStatus);
    // A client that asked for its socket now gets it (and the error of a missing WebSocket) now.
    if (!this.lazy) void this.client;
  }

  /**
   * The graphql-ws client, made on first use: HTTP calls never need one, so a runtime without
   * a WebSocket (Node 20 without `webSocketImpl`) only fails when a watch starts (the watch ends
   * `failed` with this error).
   *
   * @throws WorkflowClientError `closed` when no WebSocket implementation is available
   */
  private get client(): Client {
    this.socketClient ??= this.createSocketClient();
    return this.socketClient;
  }

  /** Makes the graphql-ws client over `options` (see {@link client}). */
  private createSocketClient(): Client {
    const options = this.options;
    const webSocketImpl = options.webSocketImpl ?? (globalThis as { WebSocket?: unknown }).WebSocket;
    if (webSocketImpl === undefined) {
      throw new WorkflowClientError(
        'closed',
        "no WebSocket implementation: this runtime has no global WebSocket (Node 20); pass webSocketImpl (import WebSocket from 'ws')",
      );
    }
    return createClient({
      url: options.url,
      webSocketImpl,
      connectionParams: () => (options.authorization === undefined ? {} : { authorization: options.authorization }),
      lazy: this.lazy,
      lazyCloseTimeout: 0,
      onNonLazyError: (errorOrClose) => {
        if (isCloseEventLike(errorOrClose))
          this.lastReason = { ...this.lastReason, code: errorOrClose.code, ...(errorOrClose.reason ? { reason: errorOrClose.reason } : {}) };
        this.everConnected = false;
        this.emit({ state: 'closed', reason: this.lastReason, fatal: true });
      },
      keepAlive: options.keepAliveMs ?? 10_000,
      retryAttempts: this.retry.attempts,
      shouldRetry: (errOrCloseEvent) => this.shouldRetry(errOrCloseEvent),
      retryWait: (retries) => this.retryWait(retries),
      on: {
        connecting: () => {
          const reason = this.lastReason;
          // A new socket: what it says (error, close) is its own.
          this.lastReason = { refused: false, opened: false };
          this.socketOpened = false;
          if (this.announcedRetry) {
            this.announcedRetry = false;
            return;
          }
          if (this.everConnected) this.emit({ state: 'reconnecting', attempt: 1, delayMs: 0, reason, failures: this.failures });
          else this.emit({ state: 'connecting' });
        },
        opened: () => {
          this.socketOpened = true;
        },
        connected: (socket) => {
          this.socket = socket as typeof this.socket;
          const reconnected = this.everConnected;
          if (reconnected) this.reconnects += 1;
          this.everConnected = true;
          this.failures = 0;
          this.lastReason = { refused: false, opened: true };
          this.emit({ state: 'connected', reconnected, reconnects: this.reconnects });
          for (const listener of [...this.connectedListeners]) listener(reconnected);
        },
        error: (error) => {
          const message = messageOf(error);
          this.lastReason = {
            ...(message === undefined ? {} : { message }),
            refused: message !== undefined && /ECONNREFUSED/.test(message),
            opened: this.socketOpened,
          };
        },
        closed: (event) => {
          this.socket = undefined;
          clearTimeout(this.pongTimer);
          this.failures += 1;
          if (isCloseEventLike(event)) {
            this.lastReason = { ...this.lastReason, code: event.code, ...(event.reason ? { reason: event.reason } : {}), opened: this.socketOpened };
          }
          if ((this.lazy && this.active === 0) || this.disposed) {
            this.everConnected = false;
            this.emit({ state: 'closed', reason: this.lastReason });
          }
        },
        ping: (received) => {
          const timeoutMs = options.pongTimeoutMs;
          if (received || timeoutMs === undefined) return;
          clearTimeout(this.pongTimer);
          this.pongTimer = setTimeout(() => {
            // 1 = WebSocket.OPEN.
            if (this.socket?.readyState === 1) this.socket.close(4408, 'Keep-alive timeout');
          }, timeoutMs);
        },
        pong: (received) => {
          if (received) clearTimeout(this.pongTimer);
        },
      },
    });
  }

  /** The last status reported. */
  get status(): ConnectionStatus {
    return this.lastStatus;
  }

  /** Adds a status listener; returns its remover. */
  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves at the next acknowledged connection (a read waiting to be retried goes then).
   * Never rejects; pending after {@link dispose}.
   */
  nextConnected(): Promise<void> {
    return new Promise((resolve) => {
      const off = this.onConnected(() => {
        off();
        resolve();
      });
    });
  }

  /** Calls `listener(reconnected)` at every acknowledged connection; returns its remover. */
  onConnected(listener: (reconnected: boolean) => void): () => void {
    this.connectedListeners.add(listener);
    return () => this.connectedListeners.delete(listener);
  }

  private emit(status: ConnectionStatus): void {
    this.lastStatus = status;
    for (const listener of [...this.listeners]) listener(status);
  }

  private shouldRetry(errOrCloseEvent: unknown): boolean {
    if (this.disposed) return false;
    // 4403: the server refused the connection_init's token; retrying cannot help.
    return !(isCloseEventLike(errOrCloseEvent) && errOrCloseEvent.code === 4403);
  }

  private async retryWait(retries: number): Promise<void> {
    const delayMs = retryDelayMs(retries, this.retry);
    this.announcedRetry = true;
    this.emit({ state: 'reconnecting', attempt: retries + 1, delayMs, reason: this.lastReason, failures: this.failures });
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakeRetry.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, delayMs);
      this.wakeRetry.add(wake);
    });
  }

  /**
   * Subscribes `query` with `variables()` read at every (re)subscribe (pure: it may be called
   * more than once per message); retried across drops by
   * the policy above. `sink.error` gets `graphql` (the server refused the operation or an event
   * carried errors), `unauthorized` (4403) or `closed` (retries exhausted, a fatal close).
   *
   * @returns the unsubscribe function (sends `complete`; idempotent)
   */
  subscribe<TData>(query: string, variables: () => Record<string, unknown>, sink: ResumableSink<TData>): () => void {
    if (this.disposed) throw new WorkflowClientError('closed', 'the client is closed');
    let client: Client;
    try {
      client = this.client;
    } catch (error) {
      // No WebSocket in this runtime: the watch ends with the error that says what to pass.
      sink.error(error as WorkflowClientError);
      return () => undefined;
    }
    this.active += 1;
    let ended = false;
    const finish = (): void => {
      if (ended) return;
      ended = true;
      this.active -= 1;
    };
    // `variables` (a getter) is read by graphql-ws's message validation, `toJSON` once per
    // subscribe message sent: the count of (re)subscriptions.
    const payload = {
      query,
      get variables(): Record<string, unknown> {
        return variables();
      },
      toJSON: (): { query: string; variables: Record<string, unknown> } => {
        sink.sent?.();
        return { query, variables: variables() };
      },
    };
    const stop = client.subscribe<TData>(payload, {
      next: (result) => {
        if (ended) return;
        // Content hidden from a metadata-scope token is no failure (see `isContentHidden`).
        const errors = (result as { errors?: GraphQLErrorLike[] }).errors?.filter((error) => !isContentHidden(error));
        if (errors !== undefined && errors.length > 0) {
          finish();
          stop();
          sink.error(new WorkflowClientError('graphql', errors.map((error) => error.message).join('; '), { errors }));
          return;
        }
        if (result.data !== undefined && result.data !== null) sink.next(result.data as TData);
      },
      error: (error) => {
        if (ended) return;
        finish();
        sink.error(this.toError(error));
      },
      complete: () => {
        if (ended) return;
        finish();
        sink.complete();
      },
    });
    return () => {
      if (ended) return;
      finish();
      stop();
    };
  }

  private toError(error: unknown): WorkflowClientError {
    if (Array.isArray(error)) {
      const errors = error as GraphQLErrorLike[];
      return new WorkflowClientError('graphql', errors.map((item) => item.message).join('; '), { errors });
    }
    if (isCloseEventLike(error)) {
      if (error.code === 4403) {
        return new WorkflowClientError(
          'unauthorized',
          `the server at ${this.options.url} refused the WebSocket (4403 Forbidden): ${
            this.options.authorization === undefined ? 'it needs a token: pass `token`' : 'the token is not one the server accepts'
          }`,
          { status: 4403 },
        );
      }
      return new WorkflowClientError(
        'closed',
        `the WebSocket to ${this.options.url} closed: ${describeDisconnect({ ...this.lastReason, code: error.code, ...(error.reason ? { reason: error.reason } : {}) }, this.options.url)}`,
        {
          status: error.code,
        },
      );
    }
    if (this.disposed) return new WorkflowClientError('closed', 'the client is closed');
    return new WorkflowClientError('closed', `the WebSocket to ${this.options.url} failed: ${describeDisconnect(this.lastReason, this.options.url)}`, {
      cause: error,
    });
  }

  /** Closes the socket and stops retrying; subscriptions still open end without an error. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const wake of [...this.wakeRetry]) wake();
    clearTimeout(this.pongTimer);
    await this.socketClient?.dispose();
    if (this.lastStatus.state !== 'closed') this.emit({ state: 'closed' });
  }
}
