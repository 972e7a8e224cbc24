import type { RunDefinition, RunDefinitionNode, RunSourceRow } from '../../../store/index.js';
import { builder } from '../../builder.js';

/** `WorkflowDefinitionNode`: a node of a definition snapshot. */
const WorkflowDefinitionNodeRef = builder.objectRef<RunDefinitionNode>('WorkflowDefinitionNode').implement({
  description: 'A node of the workflow definition the run executes.',
  fields: (t) => ({
    nodeId: t.string({ description: 'The node id.', resolve: (node) => node.nodeId }),
    nodeType: t.string({ description: 'agent, action, checkpoint, …', resolve: (node) => node.nodeType }),
    fields: t.field({ type: 'JSON', description: "The node's whole snapshot (statusDetail, timeoutMs, expectedOutput, …).", resolve: (node) => node.fields }),
  }),
});

/** `WorkflowDefinitionEdge`: an edge of a definition snapshot. */
const WorkflowDefinitionEdgeRef = builder.objectRef<{ from: string; to: string }>('WorkflowDefinitionEdge').implement({
  description: 'An edge of the workflow definition: a node the run may go to after another.',
  fields: (t) => ({
    from: t.string({ description: 'The node it leaves.', resolve: (edge) => edge.from }),
    to: t.string({ description: 'The node it enters.', resolve: (edge) => edge.to }),
  }),
});

/** `WorkflowDefinition`: the definition snapshot a run executes. */
export const WorkflowDefinitionRef = builder.objectRef<RunDefinition>('WorkflowDefinition').implement({
  description: 'The workflow definition snapshot the run executes (pi-workflows.definition-snapshot.v1): its nodes, edges and start.',
  fields: (t) => ({
    name: t.string({ description: 'The workflow name.', resolve: (definition) => definition.name }),
    startAt: t.string({ description: 'The node the run starts at.', resolve: (definition) => definition.startAt }),
    digest: t.string({ description: 'The definition digest: "sha256:" and 64 hex.', resolve: (definition) => definition.digest }),
    nodes: t.field({ type: [WorkflowDefinitionNodeRef], description: 'The nodes, by id.', resolve: (definition) => definition.nodes }),
    edges: t.field({ type: [WorkflowDefinitionEdgeRef], description: 'The edges.', resolve: (definition) => definition.edges }),
    extra: t.field({ type: 'JSON', description: "The snapshot's other fields (composition, settings, …).", resolve: (definition) => definition.extra }),
  }),
});

/** `RunSource`: where a run's workflow (or a mounted one) comes from. */
export const RunSourceRef = builder.objectRef<RunSourceRow>('RunSource').implement({
  description: 'Where a run\'s workflow comes from: the root (mountPath "") or a mounted workflow\'s source.',
  fields: (t) => ({
    mountPath: t.string({ description: 'Empty for the root workflow.', resolve: (row) => row.mountPath }),
    kind: t.string({ description: 'file or builtin.', resolve: (row) => row.source.kind }),
    path: t.string({ nullable: true, description: 'The file (kind file).', resolve: (row) => (row.source.kind === 'file' ? row.source.path : null) }),
    hash: t.string({ nullable: true, description: "The file's hash (kind file).", resolve: (row) => (row.source.kind === 'file' ? row.source.hash : null) }),
    builtinId: t.string({
      nullable: true,
      description: 'The builtin workflow (kind builtin).',
      resolve: (row) => (row.source.kind === 'builtin' ? row.source.id : null),
    }),
    revision: t.string({
      nullable: true,
      description: "The builtin's revision (kind builtin).",
      resolve: (row) => (row.source.kind === 'builtin' ? row.source.revision : null),
    }),
  }),
});
