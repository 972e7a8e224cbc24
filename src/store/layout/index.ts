import type { StateDatabase } from '../database.js';
import type { FileDescription, FileLayout } from './file-layout.js';
import { describeOwnFile, OwnFileLayout } from './own-file.js';
import { describePiWorkflowsFile, PiWorkflowsFileLayout } from './pi-workflows-file.js';
import type { StateFile } from './state-file.js';

/**
 * The layout of a database file (see `file-layout.ts`): the port every store operation goes
 * through for what differs between this server's own file and a pi-workflows state file. This
 * folder is the only place that asks which kind of file is open (a lint rule refuses it
 * anywhere else, eslint.config.js).
 */

export type { FileDescription, FileLayout, PiWorkflowsFileDescription } from './file-layout.js';

/**
 * The one factory of {@link FileLayout}: the adapter of the open file's kind. A pi-workflows
 * file's adapter builds its run order index now (one read of `runs`).
 *
 * @param database a connection opened by `StateDatabase.open`
 */
export function fileLayoutOf(database: StateDatabase): FileLayout {
  const file = database.file;
  return file.kind === 'pi-workflows' ? new PiWorkflowsFileLayout(database, file) : new OwnFileLayout(database, file);
}

/**
 * What the server reports of a file (banner, `/health`, refusal texts) without its layout
 * (the same as `FileLayout.describe`).
 */
export function describeStateFile(file: StateFile): FileDescription {
  return file.kind === 'pi-workflows' ? describePiWorkflowsFile(file) : describeOwnFile();
}

/**
 * True when replica mode may serve the file (docs/DEPLOYMENT.md "Read replicas"): our own file
 * only (a replication tool such as Litestream adds its own tables to the file it replicates,
 * which pi-workflows refuses).
 */
export function servesReplicas(file: StateFile): boolean {
  return file.kind === 'own';
}
