// @ts-check
/**
 * The selected run lives in the page's URL as `/#run=<runId>` (docs/CLIENTS.md "The live
 * lineage page"): a link opens that run, selecting a run updates it, back and forward move
 * between selections. Other hash parameters are kept as they are.
 */

/**
 * Reads the hash of the page's URL.
 *
 * @param {string} hash `location.hash`, with or without its leading `#`
 * @returns {{ run: string | null }} the selected run id (decoded, trimmed; null when absent or empty)
 */
export function parseHash(hash) {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const run = params.get('run')?.trim() ?? '';
  return { run: run === '' ? null : run };
}

/**
 * The hash selecting `runId`, keeping the other parameters of `currentHash`.
 *
 * @param {string} currentHash the current `location.hash`
 * @param {string | null} runId the run to select, or null for none
 * @returns {string} `#run=<encoded id>` (plus kept parameters), or '' when nothing remains
 */
export function hashWithRun(currentHash, runId) {
  const params = new URLSearchParams(currentHash.startsWith('#') ? currentHash.slice(1) : currentHash);
  if (runId === null) params.delete('run');
  else params.set('run', runId);
  const text = params.toString();
  return text === '' ? '' : `#${text}`;
}
