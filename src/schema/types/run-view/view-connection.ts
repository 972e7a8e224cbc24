import type { ArgBuilder, ObjectRef } from '@pothos/core';
import type { RunViewList, RunViewListItems } from '../../../store/index.js';
import { builder } from '../../builder.js';
import type { ConnectionArgs } from '../../connections.js';
import type { GraphQLContext } from '../../context.js';
import { viewPage, type RunViewShape, type ViewConnection, type ViewItem } from '../../run-view-pages.js';

/**
 * The Relay connection types of the run view's lists (`<Name>Connection` / `<Name>Edge`, with the
 * list's `totalCount` and the page's `startIndex`) and the arguments and resolver of the fields
 * that page them: `first`/`after` forward, `last`/`before` backward, at most 256 items a page;
 * neither asks for the newest 256 items (pi-workflows' own tail page). docs/GRAPHQL-CONTRACT.md
 * "The run view".
 */

/** The builder's schema types. */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The connection type of a list whose nodes are `node`. */
export function viewConnection<Item>(name: string, node: ObjectRef<Types, ViewItem<Item>>, what: string) {
  return builder.connectionObject(
    {
      type: node,
      name: `${name}Connection`,
      description: `A page of ${what} (Relay cursor connection) with the size of the whole list.`,
      edgesField: { description: `The ${what} of this page, in list order, each with its cursor.` },
      fields: (t) => ({
        totalCount: t.int({
          description: `Number of ${what} in the whole list, not just this page.`,
          resolve: (connection) => (connection as unknown as ViewConnection<unknown>).totalCount,
        }),
        startIndex: t.int({
          description: "Index (0-based) of this page's first item in the whole list (where the page would start when it is empty).",
          resolve: (connection) => (connection as unknown as ViewConnection<unknown>).startIndex,
        }),
      }),
    },
    { name: `${name}Edge`, description: `One item of a ${name}Connection page with its cursor (Relay edge).`, nodeField: { description: 'The item.' } },
  );
}

/** The arguments of a run-view list field. */
export function viewPageArgs(arg: ArgBuilder<Types>) {
  return {
    first: arg.int({ description: 'Page forward: at most this many items after `after` (0 … 256).' }),
    after: arg.string({ description: 'Cursor of the item the page starts after.' }),
    last: arg.int({ description: 'Page backward: at most this many items before `before` (0 … 256). Without first and last: the newest 256.' }),
    before: arg.string({ description: 'Cursor of the item the page ends before.' }),
  };
}

/** The resolver of a run-view list field: the page from the view's snapshot (see `viewPage`). */
export function resolveViewPage<List extends RunViewList>(list: List) {
  return (view: RunViewShape, args: ConnectionArgs, context: GraphQLContext): ViewConnection<RunViewListItems[List]> =>
    viewPage(view, list, args, context.store);
}

/** Epoch ms as a Date for a DateTime field (null stays null). */
export function dateOf(ms: number | null): Date | null {
  return ms === null ? null : new Date(ms);
}
