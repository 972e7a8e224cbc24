import type { ViewerDelta } from '../../store/index.js';
import { builder } from '../builder.js';
import { ViewerPatchOperationRef } from './viewer-patch-operation.js';
import { ViewerTargetTypeEnum } from './viewer-target-type.js';

/** One target of `ViewerDeltaBatch.deltas`. */
export const ViewerDeltaRef = builder.objectRef<ViewerDelta>('ViewerDelta').implement({
  description: 'One target patched by a presentation revision.',
  fields: (t) => ({
    deltaIndex: t.exposeInt('deltaIndex', { description: 'Order within the revision.' }),
    targetType: t.field({ type: ViewerTargetTypeEnum, description: 'The part of the live view patched.', resolve: (delta) => delta.targetType }),
    targetKey: t.exposeString('targetKey', { description: "'' when the target has no key." }),
    patch: t.field({ type: [ViewerPatchOperationRef], description: 'The operations, applied in order.', resolve: (delta) => delta.patch }),
    recordedAt: t.field({ type: 'DateTime', description: 'When the delta was recorded (ISO 8601, UTC).', resolve: (delta) => delta.recordedAt }),
  }),
});
