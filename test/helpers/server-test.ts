/**
 * `test` (vitest `test.extend`) for the tests over a real server, with automatic teardown:
 *
 * - `fx` (file scope): {@link startTestServer} with `serverOptions`, shared by the file's tests,
 *   closed after the last one (every HTTP connection dropped first, see `closeAfterSse`).
 *   Options per file: `serverTest.extend('serverOptions', { scope: 'file' }, { token: 'x' })`.
 * - `client` (file scope): one graphql-ws client of `fx` (`wsClient`), disposed before the server.
 * - `ws` (per test): a factory of graphql-ws clients (`ws({ token })`), each disposed after the test.
 * - `sse` (per test): a factory of SSE subscriptions to `fx` (`subscribeSse`), each closed after the test.
 *
 * A test names what it uses (`async ({ fx, client }) => …`); nothing it does not name starts.
 */
import type { Client } from 'graphql-ws';
import { expect, test } from 'vitest';
import {
  closeAfterSse,
  reserveRun,
  spawnReadyChild,
  subscribeSse,
  wsClient,
  type ChildProcessHandle,
  type SseSubscription,
  type WsClientOptions,
} from './live-fixtures.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server-fixture.js';

/** Opens an SSE subscription to the fixture's server (arguments of `subscribeSse` after the URL). */
export type SseFactory = <TData>(
  query: string,
  variables?: Record<string, unknown>,
  headers?: Record<string, string>,
  label?: string,
) => SseSubscription<TData>;

/** Opens graphql-ws clients of `fx` (`wsClient` options), each disposed at the fixture's cleanup. */
export type WsFactory = (options?: WsClientOptions) => Client;

/** The `ws` fixture of {@link serverTest} and {@link freshServerTest}: clients disposed by `onCleanup`. */
function wsFactory(fx: TestServer, onCleanup: (cleanup: () => Promise<void>) => void): WsFactory {
  const clients: Client[] = [];
  onCleanup(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
  });
  return (options) => {
    const client = wsClient(fx.url, options);
    clients.push(client);
    return client;
  };
}

/** See the module comment. */
export const serverTest = test
  .extend('serverOptions', { scope: 'file' }, {} as TestServerOptions)
  .extend('fx', { scope: 'file' }, async ({ serverOptions }, { onCleanup }) => {
    const fx = await startTestServer(serverOptions);
    onCleanup(() => closeAfterSse(fx));
    return fx;
  })
  .extend('client', { scope: 'file' }, async ({ fx }, { onCleanup }) => {
    const client: Client = wsClient(fx.url);
    onCleanup(() => client.dispose());
    return client;
  })
  .extend('ws', ({ fx }, { onCleanup }) => wsFactory(fx, onCleanup))
  .extend('sse', async ({ fx }, { onCleanup }) => {
    const subscriptions: Array<SseSubscription<unknown>> = [];
    onCleanup(() => {
      for (const subscription of subscriptions) subscription.close();
    });
    const open: SseFactory = <TData>(
      query: string,
      variables?: Record<string, unknown>,
      headers?: Record<string, string>,
      label?: string,
    ): SseSubscription<TData> => {
      const subscription = subscribeSse<TData>(fx.url, query, variables, headers, label);
      subscriptions.push(subscription as SseSubscription<unknown>);
      return subscription;
    };
    return open;
  });

/**
 * `serverTest` plus another process committing to the fixture's database file, the way the
 * workflow host does: `writer` (file scope) reserves `writerRunId` (option, default
 * `'run-writer'`, per file: `writerTest.extend('writerRunId', { scope: 'file' }, 'run-x')`)
 * through the server, then starts test/children/writer.ts on `fx.dbPath` and waits for it
 * to open the store. After the file's last test the writer is told to exit and must exit 0
 * (asserted). Commands: `burst N k`, `one k` (see the child).
 */
export const writerTest = serverTest
  .extend('writerRunId', { scope: 'file' }, 'run-writer')
  .extend('writer', { scope: 'file' }, async ({ fx, writerRunId }, { onCleanup }): Promise<ChildProcessHandle> => {
    await reserveRun(fx, writerRunId);
    const writer = await spawnReadyChild('test/children/writer.ts', [fx.dbPath, fx.dir, writerRunId], 'writer', 'the writer to open the store');
    onCleanup(async () => {
      writer.send('exit');
      expect(await writer.exited).toBe(0);
    });
    return writer;
  });

/**
 * `test` with a fresh server per test (for files whose tests each start from an empty database,
 * e.g. the mutation tests reading `snapshotTables` before and after): `fx` is
 * {@link startTestServer} with `serverOptions` (default `{}`), closed after the test, also when
 * it fails; `ws` as in {@link serverTest} (clients disposed before the server closes). A test
 * that does not name `fx` starts nothing.
 */
export const freshServerTest = test
  .extend('serverOptions', {} as TestServerOptions)
  .extend('fx', async ({ serverOptions }, { onCleanup }) => {
    const fx = await startTestServer(serverOptions);
    onCleanup(() => closeAfterSse(fx));
    return fx;
  })
  .extend('ws', ({ fx }, { onCleanup }) => wsFactory(fx, onCleanup));
