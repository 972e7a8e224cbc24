import { StoreError } from './errors.js';
import { VIEWER_TARGET_TYPES, type ViewerDeltaDraft } from './viewer-deltas.js';

/** The patch operations a viewer delta may carry (docs/STORE-RULES.md §8 "Record"). */
const DRAFT_OPS: readonly string[] = ['add', 'replace', 'remove', 'append'];

/**
 * Checks the drafts a host records as one viewer revision (docs/STORE-RULES.md §8 "Record")
 * before anything is written: every target type known, every patch operation one of add,
 * replace, remove, append with a string path.
 *
 * @throws StoreError(validation) `Unknown viewer target type: <type>` (field `targetType`);
 *   `Viewer patch operations must be add, replace, remove or append with a path` (field `ops`)
 */
export function assertViewerDrafts(drafts: readonly ViewerDeltaDraft[]): void {
  for (const draft of drafts) {
    if (!(VIEWER_TARGET_TYPES as readonly string[]).includes(draft.targetType)) {
      throw new StoreError('validation', `Unknown viewer target type: ${String(draft.targetType)}`, 'targetType');
    }
    for (const op of draft.ops ?? []) {
      if (!DRAFT_OPS.includes(op.op) || typeof op.path !== 'string') {
        throw new StoreError('validation', 'Viewer patch operations must be add, replace, remove or append with a path', 'ops');
      }
    }
  }
}
