import type { WorkflowRunRecord } from '../../store/index.js';
import { builder } from '../builder.js';
import { WorkflowRunRef } from './workflow-run.js';

/** Success shape of reserve and restart. */
export interface RunAdoptedShape {
  run: WorkflowRunRecord;
  adopted: boolean;
}

/**
 * Makes the success type of a mutation that returns a run (`<Mutation>Success`); each mutation
 * makes its own with this, next to it.
 *
 * @param name the type's name, e.g. `ParkWorkflowRunSuccess`
 */
export function runSuccessType(name: string, description: string) {
  return builder.objectRef<{ run: WorkflowRunRecord }>(name).implement({
    description,
    fields: (t) => ({ run: t.field({ type: WorkflowRunRef, description: 'The run as stored after the call.', resolve: (result) => result.run }) }),
  });
}

/**
 * Makes the success type of a mutation that reserves a run or adopts an identical one
 * (reserve, restart): the run and `adopted`.
 *
 * @param name the type's name, e.g. `ReserveWorkflowRunSuccess`
 */
export function adoptedRunSuccessType(name: string, description: string) {
  return builder.objectRef<RunAdoptedShape>(name).implement({
    description,
    fields: (t) => ({
      run: t.field({ type: WorkflowRunRef, description: 'The run as stored after the call.', resolve: (result) => result.run }),
      adopted: t.exposeBoolean('adopted', { description: 'True when an identical run already existed and nothing was written.' }),
    }),
  });
}
