/**
 * Result sharing between equal `@live` queries (same document, operation, variables and scope):
 * after one invalidation, the first of them to re-execute executes; the others take its result
 * and track the resource identifiers it read (the `shared` counter of `LiveQueryStats`).
 */
import type { DocumentNode, ExecutionArgs } from 'graphql';

/**
 * Live queries whose results are equal (same document, operation, variables, scope): after one
 * invalidation, the first of them to re-execute executes; the others take its result.
 */
export interface SharingGroup {
  members: number;
  /** The latest execution: after which invalidation, its result, the identifiers it read. */
  latest: { invalidation: number; result: unknown; identifiers: string[] } | undefined;
}

/**
 * What the live-query store puts on the context of each execution to collect the resource
 * identifiers the execution reads (resolvers call these properties).
 */
export interface LiveIdentifiers {
  collectResourceIdentifier(parameter: { typename: string; id: unknown }): void;
  addResourceIdentifier(values: string | readonly string[] | null | undefined): void;
}

/** Ids of documents (yoga's parser cache hands equal query texts the same DocumentNode). */
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 1;

/**
 * The {@link SharingGroup} key of a live query: document, operation, variables, scope.
 *
 * @param scope the caller's scope (auth.ts): results are shared only within one
 */
export function sharingKey(args: ExecutionArgs, scope: string): string {
  let id = documentIds.get(args.document);
  if (id === undefined) {
    id = nextDocumentId;
    nextDocumentId += 1;
    documentIds.set(args.document, id);
  }
  return JSON.stringify([id, args.operationName ?? null, scope, args.variableValues ?? null]);
}

/**
 * Makes `identifiers` also write every identifier it collects into `read` (as the store builds
 * them, `<typename>:<id>`), so an equal live query that shares the result can track them too.
 */
export function recordIdentifiers(identifiers: LiveIdentifiers, read: string[]): void {
  const collect = identifiers.collectResourceIdentifier;
  const add = identifiers.addResourceIdentifier;
  identifiers.collectResourceIdentifier = (parameter) => {
    read.push(`${parameter.typename}:${String(parameter.id)}`);
    collect(parameter);
  };
  identifiers.addResourceIdentifier = (values) => {
    if (typeof values === 'string') read.push(values);
    else if (values != null) read.push(...values);
    add(values);
  };
}
