// @ts-check
/**
 * The selected run in the URL, `/#run=<runId>` (/app/url-hash.js): the first load, back,
 * forward and an edited hash open the run it names, with its chain.
 */
import { clearChain, selectChain } from '/app/chain-tree.js';
import { showError } from '/app/dom.js';
import { gql, isSuperseded } from '/app/graphql-http.js';
import { failureText } from '/app/failure-text.js';
import { showMissing } from '/app/run-panel.js';
import { setFollow, state } from '/app/state.js';
import { parseHash } from '/app/url-hash.js';

/** Opens the run the URL names (first load, back, forward, an edited hash). */
export async function openFromHash() {
  const { run: runId } = parseHash(location.hash);
  if (runId === null || runId === state.run?.runId || runId === state.missing) return;
  setFollow(false);
  try {
    /** @type {import('../../../schema/generated/graphql.js').LivePageRunQuery} */
    const data = await gql('LivePageRun', { runId }, { isCurrent: () => parseHash(location.hash).run === runId });
    if (parseHash(location.hash).run !== runId) return;
    if (data.workflowRun === null) {
      // Nothing of another chain stays on screen for a run that does not exist.
      showMissing(runId);
      clearChain(`Workflow run not found: ${runId}`);
      return;
    }
    await selectChain(data.workflowRun.rootRunId, { runId, history: 'none' });
  } catch (error) {
    if (isSuperseded(error)) return;
    showError(failureText(error));
  }
}

/** Follows the URL: back, forward and edited hashes open the run they name. */
export function watchHash() {
  window.addEventListener('popstate', () => void openFromHash());
  window.addEventListener('hashchange', () => void openFromHash());
}
