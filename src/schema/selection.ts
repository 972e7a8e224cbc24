import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

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
  const seen = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined): boolean => {
    if (selectionSet === undefined) return false;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === name) return true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (visit(selection.selectionSet)) return true;
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        if (visit(info.fragments[selection.name.value]?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}
