import { getArgumentValues, GraphQLError, isObjectType, Kind, type GraphQLObjectType, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { PageRequest, PlannedPage, RunViewList } from '../store/index.js';
import { pageKey, pageRequestOf, VIEW_LIST_NAMES } from './run-view-pages.js';

/**
 * Which pages one read of a run view takes: every list field the `view` selection names, with
 * its arguments (variables applied), so the whole view — its head and every page asked for — is
 * read in one snapshot and never mixes two revisions (docs/GRAPHQL-CONTRACT.md "The run view").
 * Fields under `@skip`/`@include` count as selected (reading a page too many is harmless).
 */

/** The list fields of `WorkflowRunView` (`steps`, `trace`, …) and of its `session` (`entries`, `events`), by field name. */
const VIEW_LISTS: Readonly<Record<string, RunViewList>> = listsUnder('');
const SESSION_LISTS: Readonly<Record<string, RunViewList>> = listsUnder('session.');

/** The lists whose field path (`VIEW_LIST_NAMES`) is `<prefix><field>`, by field. */
function listsUnder(prefix: string): Record<string, RunViewList> {
  return Object.fromEntries(
    (Object.entries(VIEW_LIST_NAMES) as Array<[RunViewList, string]>)
      .filter(([, path]) => path.startsWith(prefix) && !path.slice(prefix.length).includes('.'))
      .map(([list, path]) => [path.slice(prefix.length), list]),
  );
}

/** The object type a field of `parent` returns, through lists and non-null wrappers. */
function namedObjectType(parent: GraphQLObjectType, field: string): GraphQLObjectType | undefined {
  let type: unknown = parent.getFields()[field]?.type;
  while (type !== undefined && typeof type === 'object' && type !== null && 'ofType' in type) type = (type as { ofType: unknown }).ofType;
  return isObjectType(type) ? type : undefined;
}

/** The request of a list's arguments, or undefined when they are bad (its field refuses them). */
function validRequest(list: RunViewList, args: () => Record<string, unknown>): PageRequest | undefined {
  try {
    return pageRequestOf(list, args());
  } catch (error) {
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
}

/** The pages the `view` field being resolved selects (lists with bad arguments left out). */
export function planRunView(info: GraphQLResolveInfo): PlannedPage[] {
  const viewType = namedObjectType(info.parentType, info.fieldName);
  if (viewType === undefined) return [];
  const pages = new Map<string, PlannedPage>();
  const visit = (
    selectionSet: SelectionSetNode | undefined,
    type: GraphQLObjectType,
    lists: Readonly<Record<string, RunViewList>>,
    seen: ReadonlySet<string>,
  ): void => {
    if (selectionSet === undefined) return;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, type, lists, seen);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        if (!seen.has(selection.name.value)) visit(info.fragments[selection.name.value]?.selectionSet, type, lists, new Set([...seen, selection.name.value]));
      } else {
        const name = selection.name.value;
        const list = lists[name];
        const field = type.getFields()[name];
        if (list !== undefined && field !== undefined) {
          // A list's bad arguments are refused by that list's own field (its path in the error),
          // not here: the view and its other lists are still read.
          const request = validRequest(list, () => getArgumentValues(field, selection, info.variableValues));
          if (request !== undefined) {
            const key = pageKey(list, request);
            pages.set(key, { key, list, request });
          }
        } else if (lists === VIEW_LISTS && name === 'session') {
          const sessionType = namedObjectType(type, name);
          if (sessionType !== undefined) visit(selection.selectionSet, sessionType, SESSION_LISTS, new Set());
        }
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, viewType, VIEW_LISTS, new Set());
  return [...pages.values()];
}
