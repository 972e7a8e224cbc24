/**
 * Fixtures of the client-library tests (Apollo Client, urql Graphcache, graphql-sse): console
 * capture (the libraries print their cache warnings with `console.warn` / `console.error`), the
 * seeded data every client test reads, and the generated documents as graphql `DocumentNode`s.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { format } from 'node:util';
import { parse } from 'graphql';
import { expect } from 'vitest';
import type { TypedDocumentString } from '../../schema/generated/graphql.js';
import { failedRoot, reserve, reserveInput, restart, type TestServer } from '../helpers/server-fixture.js';
import { serverTest } from '../helpers/server-test.js';

/** One console call captured by {@link captureConsole}. */
export interface ConsoleCall {
  level: 'warn' | 'error' | 'info' | 'log' | 'debug';
  text: string;
}

/**
 * Replaces `console.warn/error/info/log/debug` with recorders until `restore()` is called.
 *
 * @returns the calls in order (each formatted as the console would print it) and `restore`
 */
export function captureConsole(): { calls: ConsoleCall[]; restore(): void } {
  const calls: ConsoleCall[] = [];
  const levels = ['warn', 'error', 'info', 'log', 'debug'] as const;
  const originals = levels.map((level) => [level, console[level]] as const);
  for (const level of levels) {
    console[level] = (...args: unknown[]) => {
      calls.push({ level, text: format(...args) });
    };
  }
  return {
    calls,
    restore() {
      for (const [level, original] of originals) console[level] = original;
    },
  };
}

/** A generated `TypedDocumentString` parsed into a typed `DocumentNode` (Apollo Client wants an AST). */
export function documentNode<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>): TypedDocumentNode<TResult, TVariables> {
  return parse(document.toString()) as TypedDocumentNode<TResult, TVariables>;
}

/** `value` without the `__typename` fields the client libraries add (to compare with a plain HTTP result). */
export function withoutTypename(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === '__typename' ? undefined : inner))) as unknown;
}

/** Run ids of {@link seedRuns}'s five root runs, newest first (the order of `workflowRuns`). */
export const LIST_RUN_IDS = ['list-5', 'list-4', 'list-3', 'list-2', 'list-1'] as const;

/** The seeded chain: a failed root and its restart. */
export interface SeededChain {
  rootRunId: string;
  restartRunId: string;
}

/**
 * Seeds what the client tests read: five queued root runs `list-1` … `list-5` (one second
 * apart, each in its own session) created before a lineage chain of a failed root `chain-root`
 * and its restart (session `session-1`). `workflowRuns` newest first is then: restart,
 * chain-root, list-5 … list-1.
 */
export async function seedRuns(fx: TestServer): Promise<SeededChain> {
  for (const runId of [...LIST_RUN_IDS].reverse()) {
    await reserve(fx, reserveInput(runId, { originSessionId: `session-${runId}` }));
    fx.clock.advance(1_000);
  }
  await failedRoot(fx, 'chain-root', 'boom');
  fx.clock.advance(1_000);
  const { run } = await restart(fx, { runId: 'chain-root', originSessionId: 'session-1' });
  fx.clock.advance(1_000);
  return { rootRunId: 'chain-root', restartRunId: run.runId };
}

/**
 * Unsubscribe functions of the watches a cache test opened ({@link clientCacheTest} calls and
 * empties them after each test, before the console check).
 */
export const watching: Array<() => void> = [];

/**
 * `serverTest` for the client-cache tests (Apollo, urql):
 *
 * - `chain` (file scope): {@link seedRuns} on the file's server, seeded once before its first test
 *   that names `chain` (a file's cache-client fixture names it, so the data is there first).
 * - `consoleChecked` (per test, automatic): console captured ({@link captureConsole}) for the whole
 *   test; after it, every {@link watching} unsubscribe runs, the console is restored, and the test
 *   fails if the library printed anything (`expect(calls).toEqual([])`).
 */
export const clientCacheTest = serverTest
  .extend('chain', { scope: 'file' }, async ({ fx }): Promise<SeededChain> => seedRuns(fx))
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from an object pattern; this one has none
  .extend('consoleChecked', { auto: true }, ({}, { onCleanup }) => {
    const captured = captureConsole();
    onCleanup(() => {
      for (const stop of watching.splice(0)) stop();
      captured.restore();
      expect(captured.calls).toEqual([]);
    });
    return captured;
  });
