// @ts-check
/**
 * Bookkeeping revisions of the viewer-delta log. Every delta starts with
 * `replace /presentationRevision R` and nothing else of the store's own (docs/PI-WORKFLOWS-FILES.md
 * §8); a revision whose deltas carry nothing else is a record bump: the run
 * record changed (claim, mark running, park, settle: the four bump targets `summary`, `graph`,
 * `replay`, `inspector/run` of docs/STORE-RULES.md §5, or `summary`,`replay` of a claim renewal or after
 * a bump). The page hides those unless asked.
 */

/**
 * Paths a delta carries for bookkeeping; not part of the view's content. `/graphRevision` is only
 * in graph deltas this server's own file recorded before it wrote as pi-workflows does
 * (docs/PI-WORKFLOWS-FILES.md §8); such stored deltas still read as bookkeeping.
 */
export const REVISION_PATHS = Object.freeze(['/presentationRevision', '/graphRevision']);

/**
 * @typedef {{ op: string, path: string, value?: unknown }} PatchOp
 * @typedef {{ targetType: string, targetKey?: string | null, patch: PatchOp[] }} Delta
 */

/**
 * A delta's own operations: its patch without the revision markers.
 *
 * @param {Delta} delta
 * @returns {PatchOp[]}
 */
export function ownOps(delta) {
  return delta.patch.filter((op) => !REVISION_PATHS.includes(op.path));
}

/**
 * Whether a revision only records a bump (no delta has operations of its own).
 *
 * @param {{ deltas: Delta[] }} batch one presentation revision
 * @returns {boolean}
 */
export function isBookkeeping(batch) {
  return batch.deltas.every((delta) => ownOps(delta).length === 0);
}
