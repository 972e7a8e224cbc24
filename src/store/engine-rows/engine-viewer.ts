/**
 * The viewer deltas pi-workflows' engine records with content (docs/PI-WORKFLOWS-FILES.md §9;
 * pi's `runViewerTargets`): the `graph` target's patch of the run state, the `trace:tail`
 * timeline page, and tail pages of other lists. Times inside patches are ISO text, as pi's view
 * shows them; the patch values are read from the rows just written, in the same transaction.
 */
import type { JsonValue } from '../canonical-json.js';
import { StoreError } from '../errors.js';
import { iso, isoOrNull } from '../values.js';
import type { ViewerDeltaDraft, ViewerPatchOperation } from '../viewer-deltas.js';
import { countRunSteps, MAX_PAGE_ITEMS, readPlannedRunView, type Page, type RunStep, type RunUpdate } from '../run-view/index.js';
import type { EngineContext, EngineTraceEvent } from './engine-context.js';

/** A tail page patch (pi's `viewerTailPatch`): append the items after `before` items, then the new total. */
export function tailPatch(before: number, items: JsonValue[]): ViewerPatchOperation[] {
  return [
    { op: 'append', path: '/items', value: items },
    { op: 'replace', path: '/total', value: before + items.length },
  ];
}

function compactStep(step: RunStep): JsonValue {
  return {
    attemptId: step.attemptId,
    nodeId: step.nodeId,
    nodeType: step.nodeType,
    outcome: step.outcome,
    startedAt: isoOrNull(step.startedAt),
    finishedAt: isoOrNull(step.finishedAt),
    prompt: null,
    output: null,
  };
}

/**
 * Target `graph` key `''`: `/state/...` (trace position, times, status, current updates, the
 * active attempt, detail, paused, waiting node, human decision), `/graphSteps`,
 * `/takenTransitions`, `/graphCursor`, the step and update page bounds, `/manifest/...` and
 * `/live`, from the run's rows now.
 *
 * @throws StoreError(not_found) when the run is gone
 */
export function graphTarget(context: EngineContext, runId: string): ViewerDeltaDraft {
  // The head and the updates page only: the other lists' pages are not in this patch.
  const read = readPlannedRunView(context.database.connection, runId, { pages: [{ key: 'updates', list: 'updates', request: { last: MAX_PAGE_ITEMS } }] });
  if (read === null) throw new StoreError('not_found', `Workflow run not found: ${runId}`);
  const view = read.head;
  const updatesPage = read.pages.get('updates') as Page<RunUpdate>;
  const { state } = view;
  const stepTotal = countRunSteps(context.database.connection, runId);
  const updates = updatesPage.items.map((update) => ({
    updateId: update.updateId,
    seq: update.seq,
    at: iso(update.at),
    runId,
    nodeId: update.nodeId,
    attemptId: update.attemptId,
    type: update.type,
    key: update.key,
    data: context.blobs.readJson(Buffer.from(update.data.hash, 'hex')),
  }));
  const active = state.activeAttempt;
  const settings = active?.settings ?? null;
  const ops: ViewerPatchOperation[] = [
    { op: 'replace', path: '/state/traceSeq', value: state.traceSeq },
    { op: 'replace', path: '/state/updatedAt', value: iso(state.updatedAt) },
    { op: 'replace', path: '/state/status', value: state.status },
    { op: 'add', path: '/state/updates', value: updates },
    { op: 'add', path: '/state/finishedAt', value: isoOrNull(state.finishedAt) },
    { op: 'add', path: '/state/currentNode', value: state.currentNode },
    { op: 'add', path: '/state/currentAttemptId', value: active?.attemptId ?? null },
    { op: 'add', path: '/state/currentNodeStartedAt', value: isoOrNull(active?.startedAt ?? null) },
    { op: 'add', path: '/state/currentNodeDeadlineAt', value: isoOrNull(active?.deadlineAt ?? null) },
    { op: 'add', path: '/state/currentSettingsScopeId', value: settings?.scopeId ?? null },
    { op: 'add', path: '/state/currentSettingsChangeNumber', value: settings?.changeNumber ?? null },
    { op: 'add', path: '/state/currentSettingsHash', value: settings?.hash ?? null },
    { op: 'add', path: '/state/statusDetail', value: state.statusDetail },
    { op: 'add', path: '/state/paused', value: state.paused },
    { op: 'add', path: '/state/waitingOn', value: state.waitingOn },
    { op: 'add', path: '/state/humanDecision', value: null },
    { op: 'replace', path: '/graphSteps', value: view.graphSteps.map(compactStep) },
    { op: 'replace', path: '/takenTransitions', value: view.takenTransitions.map((edge) => `${edge.from}->${edge.to}`) },
    { op: 'replace', path: '/graphCursor', value: Math.max(0, stepTotal - 1) },
    { op: 'replace', path: '/stepStart', value: Math.max(0, stepTotal - MAX_PAGE_ITEMS) },
    { op: 'replace', path: '/stepTotal', value: stepTotal },
    { op: 'replace', path: '/updateStart', value: Math.max(0, updatesPage.total - MAX_PAGE_ITEMS) },
    { op: 'replace', path: '/updateTotal', value: updatesPage.total },
    { op: 'replace', path: '/manifest/status', value: state.status },
    { op: 'add', path: '/manifest/finishedAt', value: isoOrNull(state.finishedAt) },
    { op: 'replace', path: '/live', value: state.status === 'running' || state.status === 'waiting' },
  ];
  return { targetType: 'graph', targetKey: '', ops };
}

/** Target `timeline` key `trace:tail`: the event appended to the trace's tail page, the total = its `seq`. */
export function traceTailTarget(runId: string, event: EngineTraceEvent): ViewerDeltaDraft {
  const item: JsonValue = {
    seq: event.seq,
    at: iso(event.at),
    runId,
    scope: event.scope,
    type: event.type,
    ...(event.nodeId === undefined ? {} : { nodeId: event.nodeId }),
    ...(event.attemptId === undefined ? {} : { attemptId: event.attemptId }),
    payload: event.payload,
  };
  return { targetType: 'timeline', targetKey: 'trace:tail', ops: tailPatch(event.seq - 1, [item]) };
}

/** Target `replay` key `steps:reload` (after a step was added): the new step total. */
export function stepsReloadTarget(stepTotal: number): ViewerDeltaDraft {
  return { targetType: 'replay', targetKey: 'steps:reload', ops: [{ op: 'replace', path: '/stepTotal', value: stepTotal }] };
}
