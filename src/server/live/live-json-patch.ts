/**
 * JSON-patch results of `@live` queries (docs/PROTOCOL.md "Live queries"): the
 * format of `@n1ru4l/graphql-live-query-patch-json-patch` (first `{data, revision: 1}`, then
 * `{patch, revision}` with an RFC 6902 patch against the previous data), so its client-side
 * `applyLiveQueryJSONPatch` applies them.
 *
 * Built here from its two parts, `@n1ru4l/graphql-live-query-patch` and `fast-json-patch`,
 * because that package imports `fast-json-patch` by its main entry, which the tsx loader of
 * `npm start` resolves to the package's unbuilt `index.ts` (it fails to load); the ES module
 * build is imported by path instead.
 */
import { createApplyLiveQueryPatchGenerator, noDiffSymbol } from '@n1ru4l/graphql-live-query-patch';
import { compare } from 'fast-json-patch/index.mjs';

/**
 * Turns a stream of live results into JSON-patch results: the first result whole, then a patch
 * per changed result (an unchanged one is not sent).
 *
 * @returns the patch results (a non-stream result is returned as it is)
 */
export const applyLiveQueryJSONPatches = createApplyLiveQueryPatchGenerator((previous: Record<string, unknown>, current: Record<string, unknown>) => {
  const patch = compare(previous, current);
  return patch.length > 0 ? patch : noDiffSymbol;
});
