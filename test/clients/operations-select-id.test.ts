/**
 * Every selection of a `WorkflowRun` in `schema/operations/` selects its `id`:
 * Apollo Client and urql Graphcache normalise a run only under its id, so a selection without it
 * is a separate copy that mutations and subscriptions never update. Selections of an abstract
 * type (`Node`) count when the run's id is selected on the interface. Fragments count through
 * their own selections.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSchema,
  concatAST,
  getNamedType,
  isAbstractType,
  Kind,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OPERATIONS_DIR = join(ROOT, 'schema', 'operations');

/** Whether `selectionSet` selects `id` directly, through a fragment spread or an inline fragment. */
function selectsId(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === 'id' && selection.alias === undefined;
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectsId(selection.selectionSet, fragments);
    const fragment = fragments.get(selection.name.value);
    return fragment !== undefined && selectsId(fragment.selectionSet, fragments);
  });
}

/**
 * The fields (`Operation.path.to.field`, with line) whose selection set is of a type implemented
 * by WorkflowRun (WorkflowRun itself, or Node) and does not select `id`.
 */
export function runSelectionsWithoutId(schema: GraphQLSchema, sources: string[]): string[] {
  const document = concatAST(sources.map((source) => parse(source)));
  const fragments = new Map(
    document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])),
  );
  const workflowRun = schema.getType('WorkflowRun');
  const typeInfo = new TypeInfo(schema);
  const missing: string[] = [];
  const path: string[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      OperationDefinition: { enter: (node) => void path.push(node.name?.value ?? '(anonymous)'), leave: () => void path.pop() },
      FragmentDefinition: { enter: (node) => void path.push(`fragment ${node.name.value}`), leave: () => void path.pop() },
      Field: {
        enter(node) {
          path.push(node.alias?.value ?? node.name.value);
          const type = getNamedType(typeInfo.getType());
          if (node.selectionSet === undefined || type === undefined || workflowRun === undefined) return;
          const holdsRuns = type === workflowRun || (isAbstractType(type) && schema.isSubType(type, workflowRun as never));
          if (holdsRuns && !selectsId(node.selectionSet, fragments)) missing.push(`${path.join('.')} (line ${node.loc?.startToken.line ?? '?'})`);
        },
        leave: () => void path.pop(),
      },
    }),
  );
  return missing;
}

describe('schema/operations select id wherever they select a WorkflowRun', () => {
  const schema = buildSchema(readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8'));

  it('every WorkflowRun selection of every operation selects id', () => {
    const sources = readdirSync(OPERATIONS_DIR)
      .filter((name) => name.endsWith('.graphql'))
      .map((name) => readFileSync(join(OPERATIONS_DIR, name), 'utf8'));
    expect(sources.length).toBeGreaterThan(0);
    expect(runSelectionsWithoutId(schema, sources)).toEqual([]);
  });

  it('the check finds a run selected without id, in a field, an alias, a Node and a fragment', () => {
    const sources = [
      /* GraphQL */ `
        query A($runId: String!) {
          workflowRun(runId: $runId) {
            id
            parent {
              runId
            }
            kids: children {
              ...Run
            }
          }
          node(id: "x") {
            ... on WorkflowRun {
              runId
            }
          }
        }
        fragment Run on WorkflowRun {
          runId
        }
        subscription B {
          workflowRunUpdated(runId: "r") {
            runId
          }
        }
      `,
    ];
    expect(runSelectionsWithoutId(schema, sources)).toEqual([
      'A.workflowRun.parent (line 5)',
      'A.workflowRun.kids (line 8)',
      'A.node (line 12)',
      'B.workflowRunUpdated (line 22)',
    ]);
  });
});
