import { PI_WORKFLOWS_WRITTEN_LAYOUTS, type FileDescription, type WorkflowStore } from '../../store/index.js';

/**
 * How the server reports the kind of database file it serves (docs/PI-WORKFLOWS-FILES.md §2):
 * one phrase for the start banner, one object for `/health`.
 */

/** Why a pi-workflows file is served read-only when the server was started with `--read-only`. */
export const READ_ONLY_FLAG_REASON = 'the server was started read-only (--read-only)';

/**
 * The banner's description of the open database, e.g. `12 runs, read-only`,
 * `pi-workflows state file: schema 1, layout of pi-workflows 0.16.1, 0.16.2 (schema digest
 * 0469f429aad9…, app version 0.14.0); served read-write; 12 runs` or `pi-workflows state file:
 * schema 1; served read-only: its unlisted layout (schema digest 1f2e3d4c5b6a…, app version
 * 0.14.0) is not one this server writes (it writes the layout of pi-workflows 0.16.1, 0.16.2:
 * schema digest 0469f429aad9…); 12 runs` (docs/PI-WORKFLOWS-FILES.md §2).
 *
 * @param runs number of runs in the file
 */
export function describeDatabase(store: WorkflowStore, runs: number): string {
  const described = store.describeFile();
  const pi = described.piWorkflows;
  if (pi !== undefined) {
    const reason = readOnlyReason(store, described);
    const served = reason === null ? 'served read-write' : `served read-only: ${reason}`;
    // A write refusal names the layout itself: said once.
    const layout = described.writeRefusal === null ? `, ${pi.layoutText}` : '';
    return `pi-workflows state file: schema ${pi.schemaVersion}${layout}; ${served}; ${runs} runs`;
  }
  return `${runs} runs${store.readOnly ? ', read-only' : ''}`;
}

/**
 * Why a pi-workflows file is served read-only: the file's write refusal (a layout this server
 * does not write, a column its writes need missing), else {@link READ_ONLY_FLAG_REASON} when the
 * store is read-only anyway; null when it is served read-write.
 *
 * @param described the store's `describeFile()`
 */
function readOnlyReason(store: WorkflowStore, described: FileDescription): string | null {
  if (described.writeRefusal !== null) return described.writeRefusal;
  return store.readOnly ? READ_ONLY_FLAG_REASON : null;
}

/** The `/health` fields describing the open file (merged into its `database` object). */
export interface DatabaseKindHealth {
  /** True when every mutation is refused (asked for, or a pi-workflows file of a layout this server does not write). */
  readOnly: boolean;
  /** `own` (this server's migrations) or `pi-workflows` (its state file). */
  kind: 'own' | 'pi-workflows';
  /** For a pi-workflows state file: what its `schema_meta` says, its layout, and whether it is written. */
  piWorkflows?: {
    schemaVersion: number;
    /** `schema_meta.app_version` (`0.14.0` in a file of pi-workflows 0.16.2); reported, never checked. */
    appVersion: string;
    /** `schema_meta.schema_digest`, 64 lowercase hex, or null: names the layout. */
    schemaDigest: string | null;
    /** The releases known to write this layout (e.g. `["0.16.1", "0.16.2"]`), or null for a layout this server does not write. */
    layoutReleases: string[] | null;
    optionalColumns: Record<string, boolean>;
    /** True when mutations write to the file (docs/PI-WORKFLOWS-FILES.md §2). */
    writable: boolean;
    /** Why not, when not writable (see {@link describeDatabase}); null when writable. */
    readOnlyReason: string | null;
    /** The layouts this server writes: schema digest (64 hex), the app version they store, the releases known to write them. */
    writtenLayouts: Array<{ schemaDigest: string; appVersion: string; releases: string[] }>;
  };
}

/** The `/health` description of the open file. */
export function databaseKindHealth(store: WorkflowStore): DatabaseKindHealth {
  const described = store.describeFile();
  const pi = described.piWorkflows;
  if (pi === undefined) return { readOnly: store.readOnly, kind: described.kind };
  const { schemaVersion, appVersion, schemaDigest, layoutReleases, optionalColumns } = pi;
  const reason = readOnlyReason(store, described);
  return {
    readOnly: store.readOnly,
    kind: described.kind,
    piWorkflows: {
      schemaVersion,
      appVersion,
      schemaDigest,
      layoutReleases,
      optionalColumns,
      writable: reason === null,
      readOnlyReason: reason,
      writtenLayouts: PI_WORKFLOWS_WRITTEN_LAYOUTS.map(({ schemaDigest: digest, appVersion: app, releases }) => ({
        schemaDigest: digest,
        appVersion: app,
        releases: [...releases],
      })),
    },
  };
}
