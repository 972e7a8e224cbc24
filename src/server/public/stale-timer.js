// @ts-check
/**
 * Stale marks without an event: re-renders when the next shown claim expires (see
 * /app/stale.js), so its run gets its mark from a local timer, not a request.
 */
import { nextStaleAt } from '/app/stale.js';
import { redraw, state } from '/app/state.js';

/**
 * Arms the timer for the next claim expiry among the shown runs. A pending timer is only ever
 * replaced by an earlier one: every render re-arms it, and one armed for a claim that has just
 * expired must still fire.
 */
export function scheduleStaleRender() {
  /** @type {import('/app/stale.js').ClaimedRun[]} */
  const runs = [...state.list.runs, ...[...state.list.chains.values()].map((chain) => chain.latestRun), ...(state.chain?.nodes ?? [])];
  if (state.run?.record) runs.push(state.run.record);
  const next = nextStaleAt(runs, Date.now());
  if (next === null || (state.staleTimer !== null && state.staleAt !== null && state.staleAt <= next)) return;
  if (state.staleTimer !== null) clearTimeout(state.staleTimer);
  state.staleAt = next;
  state.staleTimer = setTimeout(
    () => {
      state.staleTimer = null;
      state.staleAt = null;
      redraw.staleMarks();
    },
    Math.min(next - Date.now() + 20, 2 ** 31 - 1),
  );
}
