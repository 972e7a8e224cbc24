import type { RunChangeEvent } from '../../delivery/index.js';
import { builder } from '../builder.js';
import { WorkflowRunRef } from './workflow-run.js';

/** A `change` event of the store's run-list change feed (`feed-run-changes.ts`). */
type ChangeEvent = Extract<RunChangeEvent, { kind: 'change' }>;

/** A run created or changed (docs/GRAPHQL-CONTRACT.md `workflowRunChanges`). */
export const WorkflowRunChangeRef = builder.objectRef<ChangeEvent>('WorkflowRunChange').implement({
  description: 'A run created or changed, in its state as committed (a run that changed several times since the cursor comes once, in its latest state).',
  isTypeOf: (value) => typeof value === 'object' && value !== null && (value as { kind?: string }).kind === 'change',
  fields: (t) => ({
    cursor: t.exposeString('cursor', {
      description: 'Opaque, durable position of this change: pass it as workflowRunChanges(after:) to resume after it, also after a server restart.',
    }),
    run: t.field({ type: WorkflowRunRef, description: 'The run as committed by this change (or a later one).', resolve: (event) => event.run }),
  }),
});
