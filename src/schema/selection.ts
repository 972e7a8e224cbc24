import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved selects the sub-field `name` directly (through inline
 * fragments and fragment spreads too; `@skip`/`@include` are not evaluated, so a conditional
 * selection counts as selected). Used to skip work a field's value needs only when asked for
 * (e.g. `WorkflowRunConnection.changeCursor`'s head read, which must come before the rows).
 *
 * @param info the resolver's info
 * @param name a field name of the resolved field's type
 * @returns true when any of the field's nodes selects `name`
 */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  return selectedFieldsAt(info, []).has(name);
}

/**
 * The names of the fields selected at `path` below the field being resolved (e.g.
 * `['edges', 'node']` of a connection: the fields of its nodes), through inline fragments and
 * fragment spreads at every level, over every node of the field and every alias. `@skip` and
 * `@include` are not evaluated: a conditional field counts as selected (so a caller that reads
 * less when fewer fields are selected never reads too little).
 *
 * @param info the resolver's info
 * @param path field names leading from the resolved field to the selection of interest
 * @returns the field names selected there (empty when the path itself is not selected); the
 *   same set for every item of a list (do not change it)
 */
export function selectedFieldsAt(info: GraphQLResolveInfo, path: readonly string[]): ReadonlySet<string> {
  // graphql-js passes the same fieldNodes array to the field at every item of a list (its
  // collectSubfields is memoized per execution): the walk is done once per field and path.
  let byPath = selections.get(info.fieldNodes);
  if (byPath === undefined) {
    byPath = new Map();
    selections.set(info.fieldNodes, byPath);
  }
  const pathKey = path.join('.');
  let names = byPath.get(pathKey);
  if (names === undefined) {
    names = walkSelection(info, path);
    byPath.set(pathKey, names);
  }
  return names;
}

/** {@link selectedFieldsAt} by the field nodes it was asked for, then by path. */
const selections = new WeakMap<readonly FieldNode[], Map<string, ReadonlySet<string>>>();

/** The walk behind {@link selectedFieldsAt}. */
function walkSelection(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  const names = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined, depth: number, seen: ReadonlySet<string>): void => {
    if (selectionSet === undefined) return;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (depth === path.length) names.add(selection.name.value);
        else if (selection.name.value === path[depth]) visit(selection.selectionSet, depth + 1, new Set());
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, depth, seen);
      } else if (!seen.has(selection.name.value)) {
        visit(info.fragments[selection.name.value]?.selectionSet, depth, new Set([...seen, selection.name.value]));
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, 0, new Set());
  return names;
}
