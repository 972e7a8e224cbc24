/**
 * A small HTTP load generator for GraphQL POSTs over keep-alive connections: a closed loop of
 * `concurrency` clients, each sending its next request when the previous answer arrived.
 */
import { Agent, request } from 'node:http';

/** One GraphQL POST answer. */
export interface GraphQLAnswer {
  status: number;
  body: { data?: unknown; errors?: Array<{ message: string }> };
}

/** A keep-alive client of one GraphQL endpoint. */
export class GraphQLHttpClient {
  private readonly agent: Agent;
  private readonly url: URL;

  /** @param maxSockets keep-alive connections kept open (the concurrency) */
  constructor(url: string, maxSockets: number) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** POSTs `{query, variables}` and parses the JSON answer. */
  post(query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer> {
    const payload = Buffer.from(JSON.stringify(variables === undefined ? { query } : { query, variables }));
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          agent: this.agent,
          hostname: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': payload.length },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            try {
              resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as GraphQLAnswer['body'] });
            } catch (error) {
              reject(error as Error);
            }
          });
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  /** POSTs and throws on a non-200 status or GraphQL errors. */
  async postOk(query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer['body']> {
    const answer = await this.post(query, variables);
    if (answer.status !== 200 || answer.body.errors !== undefined) {
      throw new Error(`GraphQL request failed (${answer.status}): ${JSON.stringify(answer.body.errors ?? answer.body).slice(0, 500)}`);
    }
    return answer.body;
  }

  /** Closes the kept-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}

/** What {@link closedLoop} measured. */
export interface LoadResult {
  /** Requests completed. */
  count: number;
  elapsedMs: number;
  /** Requests per second. */
  rate: number;
  /** Latency of every request, ms. */
  latencies: number[];
}

/**
 * Runs `concurrency` clients back to back until `durationMs` passed (each finishes its
 * request in flight) or `maxCount` requests were sent.
 *
 * @param send sends request number `index` (0, 1, 2, … across all clients) and checks its answer
 */
export async function closedLoop(options: {
  concurrency: number;
  durationMs: number;
  maxCount?: number;
  send: (index: number) => Promise<void>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline && next < maxCount) {
      const index = next;
      next += 1;
      const t0 = performance.now();
      await options.send(index);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  const elapsedMs = performance.now() - started;
  return { count: latencies.length, elapsedMs, rate: (latencies.length * 1000) / elapsedMs, latencies };
}
