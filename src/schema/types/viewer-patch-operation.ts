import type { ViewerPatchOperation } from '../../store/index.js';
import { builder } from '../builder.js';
import { assertContentScope } from '../content-scope.js';
import { PatchOpEnum } from './patch-op.js';

/** One operation of `ViewerDelta.patch`. */
export const ViewerPatchOperationRef = builder.objectRef<ViewerPatchOperation>('ViewerPatchOperation').implement({
  description: 'One JSON-patch-like operation of a delta.',
  fields: (t) => ({
    op: t.field({ type: PatchOpEnum, description: 'What the operation does at path.', resolve: (operation) => operation.op }),
    path: t.exposeString('path', { description: 'JSON-pointer-like path into the target view (e.g. /entries).' }),
    value: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The value to add, replace or append; null for REMOVE. Content (but for /presentationRevision): null with a FORBIDDEN error ' +
        'for a metadata-scope token.',
      resolve: (operation, _args, context) => {
        if (operation.path !== '/presentationRevision') assertContentScope(context);
        return 'value' in operation ? operation.value : null;
      },
    }),
  }),
});
