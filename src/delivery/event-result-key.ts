import { getOperationAST, Kind, visit, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * What the result of one subscription event depends on besides the event itself:
 * the document, the operation, the values of the variables the per-event execution
 * reads, and the caller's authorisation scope. Subscriptions with equal keys get equal results
 * for the same event, so shared-event-execution.ts executes an event once per key.
 *
 * The arguments of the subscription's root field are not part of it: they select the event
 * stream (`subscribe` reads `runId` and the `afterRevision` cursor), while the field's `resolve`
 * maps an event to its value without them, as every subscription field does (each resolves
 * through `freshLoaders` of src/schema/follow.ts). A subscriber at another cursor or of another run gets other
 * events, never another result for the same event. Variables used anywhere else (nested field
 * arguments, `@include` / `@skip`, fragments) are part of the key.
 */

/** Ids of documents (the parser cache hands equal query texts the same DocumentNode). */
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 1;

/** Per document, per operation name: the variables its per-event execution reads, sorted. */
const readVariablesCache = new WeakMap<DocumentNode, Map<string, readonly string[]>>();

/**
 * The names of the variables that the execution of one event of `operationName` reads: every
 * variable of the operation except those used only in its root fields' arguments (see the
 * module comment). Fragments are followed; each is read once.
 *
 * @param operationName null/undefined: the document's only operation
 * @returns the variable names, sorted; empty when the operation is not found
 */
export function variablesReadPerEvent(document: DocumentNode, operationName: string | null | undefined): readonly string[] {
  let byOperation = readVariablesCache.get(document);
  if (byOperation === undefined) {
    byOperation = new Map();
    readVariablesCache.set(document, byOperation);
  }
  const cacheKey = operationName ?? '';
  const cached = byOperation.get(cacheKey);
  if (cached !== undefined) return cached;
  const names = new Set<string>();
  const operation = getOperationAST(document, operationName);
  if (operation != null) {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const seenBelowRoot = new Set<string>();
    const seenAtRoot = new Set<string>();
    const addAllIn = (node: Parameters<typeof visit>[0]): void => {
      visit(node, {
        Variable: (variable) => {
          names.add(variable.name.value);
        },
        FragmentSpread: (spread) => {
          // Fragment spreads below the root fields: everything in the fragment is read.
          const fragment = fragments.get(spread.name.value);
          if (fragment !== undefined && !seenBelowRoot.has(fragment.name.value)) {
            seenBelowRoot.add(fragment.name.value);
            addAllIn(fragment);
          }
        },
      });
    };
    // The root level: root fields' arguments are skipped, their directives and sub-selections read.
    const addRootLevel = (selectionSet: SelectionSetNode): void => {
      for (const selection of selectionSet.selections) {
        for (const directive of selection.directives ?? []) addAllIn(directive);
        if (selection.kind === Kind.FIELD) {
          if (selection.selectionSet !== undefined) addAllIn(selection.selectionSet);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          addRootLevel(selection.selectionSet);
        } else {
          const fragment = fragments.get(selection.name.value);
          if (fragment !== undefined && !seenAtRoot.has(fragment.name.value)) {
            seenAtRoot.add(fragment.name.value);
            for (const directive of fragment.directives ?? []) addAllIn(directive);
            addRootLevel(fragment.selectionSet);
          }
        }
      }
    };
    for (const directive of operation.directives ?? []) addAllIn(directive);
    addRootLevel(operation.selectionSet);
  }
  const sorted = [...names].sort();
  byOperation.set(cacheKey, sorted);
  return sorted;
}

/**
 * The sharing key of a subscription (see the module comment): results of one event are shared
 * between subscriptions with equal keys only.
 *
 * @param variableValues the variables as sent (a variable left out differs from one sent as null:
 *   its default applies)
 * @param scope the caller's authorisation scope
 * @returns an opaque string
 */
export function eventResultKey(
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Readonly<Record<string, unknown>> | null | undefined,
  scope: string,
): string {
  let documentId = documentIds.get(document);
  if (documentId === undefined) {
    documentId = nextDocumentId;
    nextDocumentId += 1;
    documentIds.set(document, documentId);
  }
  const read: Record<string, unknown> = {};
  for (const name of variablesReadPerEvent(document, operationName)) {
    if (variableValues != null && Object.hasOwn(variableValues, name)) read[name] = variableValues[name];
  }
  return JSON.stringify([documentId, operationName ?? null, scope, read]);
}
