import type { WorkflowStore } from '../store/index.js';

/**
 * How the server reports the kind of database file it serves (issue 12 item 2): one phrase for
 * the start banner, one object for `/health`.
 */

/**
 * The banner's description of the open database, e.g. `12 runs, read-only` or
 * `pi-workflows state file: schema 1, pi-workflows 0.16.2; served read-only; 12 runs`.
 *
 * @param runs number of runs in the file
 */
export function describeDatabase(store: WorkflowStore, runs: number): string {
  const file = store.file;
  if (file.kind === 'pi-workflows') {
    return `pi-workflows state file: schema ${file.schemaVersion}, pi-workflows ${file.appVersion}; served read-only; ${runs} runs`;
  }
  return `${runs} runs${store.readOnly ? ', read-only' : ''}`;
}

/** The `/health` fields describing the open file (merged into its `database` object). */
export interface DatabaseKindHealth {
  /** True when every mutation is refused (asked for, or a pi-workflows state file). */
  readOnly: boolean;
  /** `own` (this server's migrations) or `pi-workflows` (its state file, served read-only). */
  kind: 'own' | 'pi-workflows';
  /** For a pi-workflows state file: what its `schema_meta` says and which version-dependent columns it has. */
  piWorkflows?: {
    schemaVersion: number;
    appVersion: string;
    /** 64 lowercase hex, or null; differs between pi-workflows releases (reported, not checked). */
    schemaDigest: string | null;
    optionalColumns: Record<string, boolean>;
  };
}

/** The `/health` description of the open file. */
export function databaseKindHealth(store: WorkflowStore): DatabaseKindHealth {
  const file = store.file;
  if (file.kind === 'own') return { readOnly: store.readOnly, kind: 'own' };
  const { schemaVersion, appVersion, schemaDigest, optionalColumns } = file;
  return { readOnly: true, kind: 'pi-workflows', piWorkflows: { schemaVersion, appVersion, schemaDigest, optionalColumns } };
}
