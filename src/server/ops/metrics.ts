/**
 * `GET /metrics` in the Prometheus text format, with prom-client. Behind the
 * token when one is set (app.ts). What it holds, all prefixed `pi_workflows_`:
 *
 * - `graphql_requests_total{operation, type, status}` and
 *   `graphql_request_duration_seconds{operation, type}`: GraphQL HTTP requests (queries,
 *   mutations, SSE subscriptions until the response starts, graphql-sse single-connection
 *   requests) by operation name (the executed operation's own name when the request has no
 *   `operationName`; `(anonymous)`; `(none)` when nothing was executed, e.g. a syntax error)
 *   and type (`query`, `mutation`, `subscription`, `(none)`). Operation names come from
 *   clients, so at most {@link MAX_OPERATION_NAMES} distinct names get a label; the rest count
 *   as `(other)`.
 * - `live_subscriptions{transport}`: subscriptions streaming now, by transport (`graphql-ws`,
 *   `sse` for yoga's distinct connections, `graphql-sse-single`).
 * - `change_feed_lag_seconds`: from the moment the change feed noticed a commit to the moment a
 *   subscription took the event it caused (see `ChangeFeed.onDelivery`).
 * - `sqlite_busy_retries_total`: writes that found the write lock taken by another connection
 *   (mutations waiting asynchronously, plus synchronous `BEGIN IMMEDIATE` rounds retried).
 * - `view_reads_total`: reads of a run's view for its followers (`workflowRunView`): one per
 *   follower position and presentation revision, shared by every worker's followers
 *   (docs/OPERATIONS.md "Workers").
 * - `sqlite_wal_bytes`: size of the database's write-ahead log file.
 * - replicas only (`--replica`, docs/DEPLOYMENT.md "Read replicas"): `replica_position` and
 *   `replica_primary_position` (newest run change position of the copy served and of the
 *   primary at its last `/health` answer), `replica_positions_behind` and
 *   `replica_lag_seconds` (seconds since the primary first reported a position the copy lacks),
 *   each NaN while unknown; `replica_reopens_total` (the file replaced and reopened).
 * - prom-client's default process metrics (CPU, memory, event-loop lag, handles), unprefixed;
 *   with `--workers` each worker's carry `worker="<id>"` (docs/OPERATIONS.md "Workers").
 *
 * With workers, `/metrics` is prom-client's `AggregatorRegistry` over every worker's registry:
 * counters and histograms summed, `sqlite_wal_bytes` (one file) the largest worker's reading.
 */
import type { ServerResponse } from 'node:http';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkflowStore } from '../../store/index.js';
import type { ReplicaStatus } from '../database/replica.js';
import { SSE_TOKEN_HEADER } from '../graphql/graphql-sse.js';
import { onResultsEnd, type ChangeFeed } from '../../delivery/index.js';

/** Distinct operation names given their own label value; later names count as `(other)`. */
export const MAX_OPERATION_NAMES = 200;

/** The transports a subscription streams over. */
export type LiveTransport = 'graphql-ws' | 'sse' | 'graphql-sse-single';

/** The metrics of one server. */
export interface ServerMetrics {
  /** The registry `/metrics` renders. */
  readonly registry: Registry;
  /** The yoga plugin measuring HTTP requests and the subscriptions of every transport (graphql-ws, SSE, graphql-sse). */
  plugin(): Plugin;
  /**
   * Counts `stream` in `live_subscriptions{transport}` until it ends (completes, fails, or is
   * returned by its consumer).
   *
   * @returns a stream yielding what `stream` yields
   */
  trackLive<T>(transport: LiveTransport, stream: AsyncIterable<T>): AsyncIterableIterator<T>;
  /** Renders the registry: the body and content type of `GET /metrics`. */
  render(): Promise<{ body: string; contentType: string }>;
  /** Stops listening to the change feed. */
  close(): void;
}

/**
 * The transport of a subscription, from its context: every transport starts its subscriptions
 * through yoga's envelop. graphql-ws contexts carry graphql-ws's `extra` (socket and upgrade
 * request) and no fetch `request`.
 */
function transportOf(context: { request?: Request; extra?: unknown }): LiveTransport {
  if (context.request === undefined && context.extra !== undefined) return 'graphql-ws';
  return context.request?.headers.has(SSE_TOKEN_HEADER) === true ? 'graphql-sse-single' : 'sse';
}

/**
 * Sampling interval of the default metrics' event-loop delay histogram (`nodejs_eventloop_lag_*`),
 * ms. prom-client's default, 10 ms, wakes an idle server 100 times a second: ≈ 4 ms of CPU per
 * second with nothing to do, most of an idle server's cost (measured with a
 * bare process: 3.98 ms/s at 10 ms, 0.59 at 100, 0.05 without the monitor). Every sample still
 * records the full delay of its turn, so a stall of the event loop still shows in the metrics.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * Creates the metrics of a server over its store and change feed.
 *
 * @param replica a replica's status (its gauges), or undefined for a primary
 * @param worker the cluster worker id labelling the process metrics (`worker="<id>"`), or undefined in a single process
 * @returns the metrics; `close()` them with the server
 */
export function createMetrics(store: WorkflowStore, feed: ChangeFeed, replica?: ReplicaStatus, worker?: number): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    ...(worker === undefined ? {} : { labels: { worker: String(worker) } }),
  });
  const requests = new Counter({
    name: 'pi_workflows_graphql_requests_total',
    help: 'GraphQL HTTP requests by operation name, operation type and HTTP status.',
    labelNames: ['operation', 'type', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'pi_workflows_graphql_request_duration_seconds',
    help: 'Time from a GraphQL HTTP request to the start of its response, in seconds, by operation name and type.',
    labelNames: ['operation', 'type'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const live = new Gauge({
    name: 'pi_workflows_live_subscriptions',
    help: 'Subscriptions streaming now, by transport (graphql-ws, sse, graphql-sse-single).',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  for (const transport of ['graphql-ws', 'sse', 'graphql-sse-single'] as const) live.set({ transport }, 0);
  const feedLag = new Histogram({
    name: 'pi_workflows_change_feed_lag_seconds',
    help: 'From the change feed noticing a commit to a subscription taking the event it caused, in seconds.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Counter({
    name: 'pi_workflows_sqlite_busy_retries_total',
    help: 'Writes that found the write lock held by another connection and waited (mutations wait asynchronously; synchronous store calls count each BEGIN IMMEDIATE round retried after the busy timeout).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(store.busyRetries);
    },
  });
  new Counter({
    name: 'pi_workflows_view_reads_total',
    help: "Reads of a run's view made for its followers (once per follower position and revision, shared by the followers of every worker).",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(feed.viewReadsMade);
    },
  });
  new Gauge({
    name: 'pi_workflows_sqlite_wal_bytes',
    help: 'Size of the SQLite write-ahead log file, in bytes.',
    registers: [registry],
    // Every worker reads the size of the same file.
    aggregator: 'max',
    collect() {
      this.set(store.walSizeBytes());
    },
  });
  if (replica !== undefined) addReplicaMetrics(registry, replica);
  const stopFeedLag = feed.onDelivery((lagMs) => feedLag.observe(lagMs / 1000));

  const names = new Set<string>();
  const operationLabel = (name: string): string => {
    if (names.has(name)) return name;
    if (names.size >= MAX_OPERATION_NAMES) return '(other)';
    names.add(name);
    return name;
  };

  function trackLive<T>(transport: LiveTransport, stream: AsyncIterable<T>): AsyncIterableIterator<T> {
    const iterator = stream[Symbol.asyncIterator]();
    let open = true;
    live.inc({ transport });
    const end = (): void => {
      if (!open) return;
      open = false;
      live.dec({ transport });
    };
    const tracked: AsyncIterableIterator<T> = {
      [Symbol.asyncIterator]: () => tracked,
      async next() {
        try {
          const item = await iterator.next();
          if (item.done === true) end();
          return item;
        } catch (error) {
          end();
          throw error;
        }
      },
      async return(value?: unknown) {
        end();
        return iterator.return === undefined ? { done: true, value: value as T } : iterator.return(value);
      },
      async throw(error?: unknown) {
        end();
        if (iterator.throw === undefined) throw error;
        return iterator.throw(error);
      },
    };
    return tracked;
  }

  return {
    registry,
    trackLive,
    plugin() {
      // Start times of the GraphQL requests (path ending in /graphql), the only ones counted.
      const started = new WeakMap<Request, number>();
      const operations = new WeakMap<Request, { name: string; type: string }>();
      const remember = (request: Request | undefined, document: DocumentNode, operationName: string | null | undefined): void => {
        if (request === undefined) return;
        const operation = getOperationAST(document, operationName);
        operations.set(request, { name: operation?.name?.value ?? '(anonymous)', type: operation?.operation ?? '(none)' });
      };
      return {
        onRequest({ request, url }) {
          if (url.pathname.endsWith('/graphql')) started.set(request, performance.now());
        },
        onExecute({ args }) {
          remember((args.contextValue as { request?: Request }).request, args.document, args.operationName);
        },
        onSubscribe({ args }) {
          const context = args.contextValue as { request?: Request; extra?: unknown };
          remember(context.request, args.document, args.operationName);
          return {
            onSubscribeResult({ result, setResult }) {
              if (!(Symbol.asyncIterator in result)) return;
              // The shared execution's result stream tells its end: no wrapper per subscription.
              const transport = transportOf(context);
              live.inc({ transport });
              if (!onResultsEnd(result, () => live.dec({ transport }))) {
                live.dec({ transport });
                setResult(trackLive(transport, result));
              }
            },
          };
        },
        onResponse({ request, response }) {
          const start = started.get(request);
          if (start === undefined) return;
          const operation = operations.get(request) ?? { name: '(none)', type: '(none)' };
          const labels = { operation: operationLabel(operation.name), type: operation.type };
          requests.inc({ ...labels, status: String(response.status) });
          duration.observe(labels, (performance.now() - start) / 1000);
        },
      };
    },
    async render() {
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
    close() {
      stopFeedLag();
    },
  };
}

/** The gauges of a replica (see the module comment); NaN while a value is unknown. */
function addReplicaMetrics(registry: Registry, replica: ReplicaStatus): void {
  const known = (value: number | null): number => value ?? Number.NaN;
  const gauges: Array<[string, string, (health: ReturnType<ReplicaStatus['health']>) => number]> = [
    ['pi_workflows_replica_position', 'Newest run change position of the file this replica serves.', (health) => health.position],
    [
      'pi_workflows_replica_primary_position',
      "The primary's newest run change position at its last /health answer.",
      (health) => known(health.primaryPosition),
    ],
    [
      'pi_workflows_replica_positions_behind',
      "Run change positions the replica is behind the primary's last-read position.",
      (health) => known(health.positionsBehind),
    ],
    [
      'pi_workflows_replica_lag_seconds',
      'Seconds since the primary first reported a position this replica does not hold yet (0 when it holds the last one read).',
      (health) => known(health.lagSeconds),
    ],
  ];
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(replica.health()));
      },
    });
  }
  new Counter({
    name: 'pi_workflows_replica_reopens_total',
    help: 'Times the replica file was replaced (renamed over) and reopened.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(replica.health().reopens);
    },
  });
}

/** Answers `GET /metrics` (the gate has checked the token): the registry in Prometheus text, not cached. */
export function serveMetrics(metrics: ServerMetrics, response: ServerResponse): void {
  void metrics.render().then(({ body, contentType }) => {
    response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
    response.end(body);
  });
}
