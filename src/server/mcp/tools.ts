/**
 * The tools of the MCP endpoint (docs/MCP.md "Tools"): what each takes (a zod 4 schema, listed as
 * its JSON Schema), which scope lists it, and which committed operation of
 * `schema/operations/mcp.graphql` it runs (./graphql-calls.ts). A tool answers
 * `structuredContent` (a JSON object) and the same object as indented JSON text; a GraphQL error
 * or a typed mutation error is a tool error (`isError: true`) whose text is the server's
 * (masked) message.
 *
 * Write tools are the claim-free actions of a control surface: restart, cancel (without a claim
 * token, through a control claim), pause and resume. The claim holder's mutations (claim, park,
 * settle, renew, mark running, report state) belong to the runner holding the lease, and
 * reserving a run needs the workflow definition snapshot only the workflow host has: neither is
 * a tool; both stay on `/graphql`.
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { GraphQLEnumType } from 'graphql';
import { z } from 'zod';
import { schema } from '../../schema/index.js';
import type { Scope } from '../http/auth.js';
import type { GraphQLCaller, GraphQLResultJson, McpOperationName } from './graphql-calls.js';

/** The longest `wait_for_run_change` wait, in ms (also its default). */
export const MAX_WAIT_MS = 30_000;

/** How many revisions of viewer deltas `inspect_run` returns by default, and at most. */
export const RECENT_REVISIONS = { default: 3, max: 20 } as const;

/** What a tool call has besides its arguments. */
export interface ToolContext {
  graphql: GraphQLCaller;
  /** Fires when the client goes away or the server closes. */
  signal: AbortSignal;
}

/** One tool. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** `read` tools are listed for every token; `write` tools for the full token only. */
  scope: Scope;
  input: z.ZodObject;
  annotations: ToolAnnotations;
  call(args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult>;
}

/** The values of a GraphQL enum of the server's schema (so the tools never drift from it). */
function enumValues(name: string): [string, ...string[]] {
  const type = schema.getType(name);
  if (!(type instanceof GraphQLEnumType)) throw new Error(`the schema has no enum ${name}`);
  return type.getValues().map((value) => value.name) as [string, ...string[]];
}

/** A successful result: `structured` as structuredContent and as indented JSON text. */
export function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
}

/** A tool error with this text (and, when given, the structured form of the error). */
export function toolError(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(structured === undefined ? {} : { structuredContent: structured }) };
}

/**
 * A result's GraphQL errors as a tool error: one line per (masked) message, and the errors with
 * their codes. Content refused to a metadata-scope token is no failure: the value is null.
 */
function graphqlErrors(result: GraphQLResultJson): CallToolResult | undefined {
  const failures = (result.errors ?? []).filter((error) => error.extensions?.reason !== 'METADATA_SCOPE');
  if (failures.length === 0) return undefined;
  const errors = failures.map((error) => ({
    message: error.message,
    code: typeof error.extensions?.code === 'string' ? error.extensions.code : null,
    ...(error.path === undefined ? {} : { path: error.path }),
  }));
  return toolError(errors.map((error) => (error.code === null ? error.message : `${error.code}: ${error.message}`)).join('\n'), { errors });
}

/** Something with an `error { text }` (a view's head, a step), as the MCP operations select it. */
type WithError = Record<string, unknown> & { error: { text: string | null } | null };

/** The object with its `error` as plain text (null for none): what the tools return. */
function errorAsText({ error, ...fields }: WithError): Record<string, unknown> {
  return { ...fields, error: error?.text ?? null };
}

/** The run view's essentials as `McpInspectRun` reads them. */
type RunViewEssentials = WithError & { steps: { totalCount: number; edges: Array<{ node: WithError }> } };

/** The run view's essentials as inspect_run returns them: errors as text, steps as a list (the last 50, with their total). */
function viewEssentials({ steps, ...view }: RunViewEssentials): Record<string, unknown> {
  return { ...errorAsText(view as WithError), stepTotal: steps.totalCount, steps: steps.edges.map(({ node }) => errorAsText(node)) };
}

/** A `McpViewChanges` event. */
type ViewEvent =
  { __typename: 'WorkflowRunViewReset'; revision: number; cursor: string } | ({ __typename: 'WorkflowRunViewChanged' } & Record<string, unknown>);

/**
 * What changed in the run's view, as wait_for_run_change returns it: `kind: "changed"` with the
 * head now and the steps, trace events and conversation entries added (error texts flattened),
 * or `kind: "reset"` (too much changed: call inspect_run), each with the cursor to pass next.
 */
function viewChanges(event: ViewEvent): Record<string, unknown> {
  if (event.__typename === 'WorkflowRunViewReset') {
    return {
      kind: 'reset',
      revision: event.revision,
      cursor: event.cursor,
      message: 'More changed than one answer carries: call inspect_run for the whole view',
    };
  }
  const { __typename, view, steps, ...fields } = event as unknown as Record<string, unknown> & { view: WithError; steps: WithError[] };
  return { kind: 'changed', ...fields, view: errorAsText(view), steps: steps.map(errorAsText) };
}

/** A run the tool looked for and GraphQL answered null for. */
function runNotFound(runId: string): CallToolResult {
  return toolError(`NOT_FOUND: no run "${runId}"`, { error: { code: 'NOT_FOUND', message: `no run "${runId}"` } });
}

/** `{ __typename, … }` of a mutation's result union: the success's fields, or a tool error for a typed error. */
function mutationOutcome(result: GraphQLResultJson, field: string, success: string): CallToolResult {
  const failed = graphqlErrors(result);
  if (failed !== undefined) return failed;
  const outcome = result.data?.[field] as ({ __typename: string } & Record<string, unknown>) | undefined;
  if (outcome === undefined) return toolError(`The mutation ${field} answered no result`);
  const { __typename, ...fields } = outcome;
  if (__typename === success) return toolResult(fields);
  const { code, message, field: inputField } = fields as { code: string; message: string; field?: string | null };
  return toolError(`${code}: ${message}`, { error: { type: __typename, code, message, ...(inputField == null ? {} : { field: inputField }) } });
}

const runId = z.string().min(1).describe('The run id (runId of list_runs / inspect_run).');
const instant = (what: string) => z.string().describe(`ISO-8601 instant, e.g. 2026-11-30T09:15:00.000Z: ${what} (exclusive)`);

const listRunsInput = z
  .object({
    status: z
      .array(z.enum(enumValues('WorkflowRunStatus')))
      .optional()
      .describe('Runs in any of these durable states (runs.status).'),
    queueStatus: z
      .array(z.enum(enumValues('RunQueueStatus')))
      .optional()
      .describe('Runs in any of these scheduling states (run_queue.status).'),
    rootRunId: z.string().optional().describe('Runs of this chain (its root run id).'),
    parentRunId: z.string().optional().describe('Direct children of this run.'),
    lineageKind: z.enum(enumValues('LineageKind')).optional().describe('Children of this kind only (root runs have none).'),
    originSessionId: z.string().optional().describe('Runs of this Pi session.'),
    workflowName: z.string().optional().describe('Runs of this workflow.'),
    search: z.string().optional().describe('Runs whose runId or workflowName contains this text, ignoring ASCII case; at most 256 characters.'),
    createdAfter: instant('created after').optional(),
    createdBefore: instant('created before').optional(),
    updatedAfter: instant('last changed after').optional(),
    updatedBefore: instant('last changed before').optional(),
    orderBy: z.enum(enumValues('WorkflowRunOrderField')).optional().describe('Order by CREATED_AT (default) or UPDATED_AT, then runId.'),
    direction: z.enum(enumValues('OrderDirection')).optional().describe('DESC (default: newest first) or ASC.'),
    first: z.number().int().min(1).max(100).optional().describe('Page size, 1 … 100 (default 20).'),
    after: z.string().optional().describe('endCursor of the previous page, to read the next one.'),
  })
  .strict();

const inspectRunInput = z
  .object({
    runId,
    recentRevisions: z
      .number()
      .int()
      .min(0)
      .max(RECENT_REVISIONS.max)
      .optional()
      .describe(
        `How many of the run's latest viewer revisions to return with their deltas, 0 … ${RECENT_REVISIONS.max} (default ${RECENT_REVISIONS.default}).`,
      ),
  })
  .strict();

const waitInput = z
  .object({
    runId,
    afterRevision: z
      .number()
      .int()
      .min(0)
      .describe("The run's presentationRevision you last saw (inspect_run, list_runs or the previous wait's presentationRevision)."),
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .max(MAX_WAIT_MS)
      .optional()
      .describe(`How long to wait for a change, in ms, 1 … ${MAX_WAIT_MS} (default ${MAX_WAIT_MS}).`),
    viewCursor: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The view's cursor (inspect_run's view.cursor, or the previous wait's view.cursor): then the answer says what changed in the run's view since.",
      ),
  })
  .strict();

const restartInput = z
  .object({
    runId: runId.describe('The terminal run to restart (COMPLETED, FAILED, TIMED_OUT; a cancelled run cannot be restarted).'),
    originSessionId: z
      .string()
      .min(1)
      .describe("The Pi session asking for the restart: it must be the run's own originSessionId (another session's run is refused, FORBIDDEN)."),
    parentTerminalFingerprint: z
      .string()
      .optional()
      .describe(
        "The run's terminalFingerprint as you saw it (64 hex characters); when the run's outcome changed since, the restart is refused. Default: the run's own.",
      ),
    restartRunId: z.string().optional().describe('Id of the new run; default derived from the run and its fingerprint (a retry adopts the same restart).'),
  })
  .strict();

const runOnly = z.object({ runId }).strict();

/** The run-list filter of `list_runs` arguments, as `WorkflowRunFilter`. */
const FILTER_FIELDS = [
  'status',
  'queueStatus',
  'rootRunId',
  'parentRunId',
  'lineageKind',
  'originSessionId',
  'workflowName',
  'search',
  'createdAfter',
  'createdBefore',
  'updatedAfter',
  'updatedBefore',
] as const;

/** Runs a mutation tool's operation with `{ input }`. */
function mutationTool(operation: McpOperationName, field: string, success: string) {
  return async (args: Record<string, unknown>, { graphql }: ToolContext): Promise<CallToolResult> =>
    mutationOutcome(await graphql.run(operation, { input: args }), field, success);
}

/** Every tool, read tools first. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'list_runs',
    title: 'List workflow runs',
    description:
      'One page of workflow runs, newest first unless orderBy/direction say otherwise, filtered by status, queue status, chain, parent, ' +
      'lineage kind, Pi session, workflow, text search and created/updated time ranges (all filters combine with AND). ' +
      'Returns totalCount, the runs and pageInfo {hasNextPage, endCursor}: pass endCursor as after for the next page.',
    scope: 'read',
    input: listRunsInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async call(args, { graphql }) {
      const filter = Object.fromEntries(FILTER_FIELDS.flatMap((name) => (args[name] === undefined ? [] : [[name, args[name]]])));
      const variables: Record<string, unknown> = { first: args.first ?? 20, filter };
      if (args.after !== undefined) variables.after = args.after;
      if (args.orderBy !== undefined || args.direction !== undefined) {
        variables.orderBy = { field: args.orderBy ?? 'CREATED_AT', direction: args.direction ?? 'DESC' };
      }
      const result = await graphql.run('McpListRuns', variables);
      const failed = graphqlErrors(result);
      if (failed !== undefined) return failed;
      const page = result.data?.workflowRuns as { totalCount: number; edges: Array<{ node: unknown }>; pageInfo: unknown };
      return toolResult({ totalCount: page.totalCount, runs: page.edges.map((edge) => edge.node), pageInfo: page.pageInfo });
    },
  },
  {
    name: 'inspect_run',
    title: 'Inspect a workflow run',
    description:
      'One run in full (input, launch options, claim, error, fingerprints); what pi-workflows shows of it (view: title, display status, ' +
      'reason and controls, the last 50 steps with outcomes and errors, the final output, what it waits on); its place in its chain (parent, continuation, restart, the latest run) ' +
      'with the first 100 runs of the chain (lineage, root first), and the viewer deltas of its most recent revisions. ' +
      'presentationRevision is the cursor wait_for_run_change takes.',
    scope: 'read',
    input: inspectRunInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async call(args, { graphql }) {
      const id = args.runId as string;
      const result = await graphql.run('McpInspectRun', { runId: id });
      const failed = graphqlErrors(result);
      if (failed !== undefined) return failed;
      const run = result.data?.workflowRun as (Record<string, unknown> & { presentationRevision: number; lineage: Record<string, unknown> }) | null;
      if (run == null) return runNotFound(id);
      const { lineage, view, ...fields } = run as typeof run & { view: RunViewEssentials };
      const { edges, ...page } = lineage as { edges: Array<{ node: unknown }> };
      const recent = (args.recentRevisions as number | undefined) ?? RECENT_REVISIONS.default;
      let viewerDeltas: unknown = null;
      // Revision 1 has no predecessor to read after (afterRevision 0 asks for a snapshot).
      if (recent > 0 && run.presentationRevision > 1) {
        const deltas = await graphql.run('McpViewerDeltas', { runId: id, afterRevision: Math.max(1, run.presentationRevision - recent) });
        const deltasFailed = graphqlErrors(deltas);
        if (deltasFailed !== undefined) return deltasFailed;
        viewerDeltas = (deltas.data?.workflowRun as { viewerDeltas?: unknown } | null)?.viewerDeltas ?? null;
      }
      return toolResult({ run: fields, view: viewEssentials(view), lineage: { ...page, runs: edges.map((edge) => edge.node) }, viewerDeltas });
    },
  },
  {
    name: 'wait_for_run_change',
    title: 'Wait for a run to change',
    description:
      `Waits until the run has a viewer revision after afterRevision, for at most timeoutMs (≤ ${MAX_WAIT_MS} ms), and returns at once when it already has one. ` +
      'kind "changed": presentationRevision and deltas of the next revision, and the run as stored now; call again with afterRevision = presentationRevision to follow it. ' +
      'kind "snapshot_required": afterRevision cannot be replayed (0, ahead of the run, or older than the retained log): re-read the run (returned) and continue from currentRevision. ' +
      'kind "timeout": nothing changed; call again with the same afterRevision. ' +
      "With viewCursor (inspect_run's view.cursor): also view, what changed in the run's view since (steps with outputs, trace events, conversation entries, the display now) and the view.cursor to pass next.",
    scope: 'read',
    input: waitInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async call(args, { graphql, signal }) {
      const id = args.runId as string;
      const afterRevision = args.afterRevision as number;
      const timeoutMs = (args.timeoutMs as number | undefined) ?? MAX_WAIT_MS;
      const timeout = AbortSignal.timeout(timeoutMs);
      const event = await graphql.first('McpRunChange', { runId: id, afterRevision }, AbortSignal.any([signal, timeout]));
      if (event === 'aborted' && !timeout.aborted) return toolError('The wait was stopped: the server is closing or the client went away');
      if (event === 'aborted') {
        return toolResult({
          kind: 'timeout',
          runId: id,
          afterRevision,
          timeoutMs,
          message: `No change of run "${id}" after revision ${afterRevision} within ${timeoutMs} ms`,
        });
      }
      if (event === 'ended') return toolError(`The change stream of run "${id}" ended without an event`);
      const failed = graphqlErrors(event);
      if (failed !== undefined) return failed;
      const { __typename, ...change } = event.data?.workflowRunDeltas as { __typename: string } & Record<string, unknown>;
      const now = await graphql.run('McpRun', { runId: id });
      const runFailed = graphqlErrors(now);
      if (runFailed !== undefined) return runFailed;
      const run = (now.data?.workflowRun as Record<string, unknown> | null) ?? null;
      const viewCursor = args.viewCursor as string | undefined;
      let view: Record<string, unknown> | undefined;
      if (viewCursor !== undefined) {
        // Something changed: the view's first event after the cursor comes at once.
        const viewEvent = await graphql.first('McpViewChanges', { runId: id, after: viewCursor }, signal);
        if (viewEvent === 'aborted') return toolError('The wait was stopped: the server is closing or the client went away');
        if (viewEvent === 'ended') return toolError(`The view stream of run "${id}" ended without an event`);
        const viewFailed = graphqlErrors(viewEvent);
        if (viewFailed !== undefined) return viewFailed;
        view = viewChanges(viewEvent.data?.workflowRunView as ViewEvent);
      }
      return toolResult({
        kind: __typename === 'ViewerDeltaBatch' ? 'changed' : 'snapshot_required',
        afterRevision,
        ...change,
        run,
        ...(view === undefined ? {} : { view }),
      });
    },
  },
  {
    name: 'restart_run',
    title: 'Restart a terminal run',
    description:
      'Reserves the restart of a terminal interactive run of your Pi session (a new run of the chain with restartNumber + 1, queued for a runner). ' +
      "Idempotent: a retry answers the same restart with adopted: true. Refused: a cancelled, headless or non-terminal run, another session's run, the restart limit.",
    scope: 'write',
    input: restartInput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: mutationTool('McpRestartRun', 'restartWorkflowRun', 'RestartWorkflowRunSuccess'),
  },
  {
    name: 'cancel_run',
    title: 'Cancel a run',
    description:
      "Cancels a run as pi-workflows' control surface does, without a claim token: a queued or starting run nobody claimed directly, any other through a control claim " +
      'taken and released in the same transaction; its pending work is cancelled. Refused: a finished run, a run under another live claim (its runner holds it).',
    scope: 'write',
    input: runOnly,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    call: mutationTool('McpCancelRun', 'cancelWorkflowRun', 'CancelWorkflowRunSuccess'),
  },
  {
    name: 'pause_run',
    title: 'Pause a parked run',
    description: 'Pauses a parked, unclaimed run that waits for input (statusDetail "paused"); a paused run is answered as it is. resume_run undoes it.',
    scope: 'write',
    input: runOnly,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: mutationTool('McpPauseRun', 'pauseWorkflowRun', 'PauseWorkflowRunSuccess'),
  },
  {
    name: 'resume_run',
    title: 'Resume a paused run',
    description: 'Resumes a paused, parked, unclaimed run: it waits for origin-session input again.',
    scope: 'write',
    input: runOnly,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    call: mutationTool('McpResumeRun', 'resumeWorkflowRun', 'ResumeWorkflowRunSuccess'),
  },
];
