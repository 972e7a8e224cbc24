// @ts-check
/**
 * The header's database line: which database the server serves and whether it is read-only,
 * from the server's `GET /health` (sent with the token when there is one; without an accepted
 * token the server tells only its status, and the line says so).
 */
import { $, el } from '/app/dom.js';
import { failureText } from '/app/failure-text.js';
import { TOKEN } from '/app/session.js';

/**
 * @typedef {{ path?: string, readOnly?: boolean, kind?: string, error?: string,
 *   piWorkflows?: { layoutReleases?: string[] | null, readOnlyReason?: string | null } }} HealthDatabase
 * @typedef {{ status?: string, database?: HealthDatabase, replica?: unknown }} Health
 */

/**
 * What the line shows of a `/health` answer.
 *
 * @param {Health} health
 * @returns {{ path: string, kind: string, mode: '' | 'read-only' | 'read-write', title: string }}
 */
export function databaseLine(health) {
  const database = health.database;
  if (database?.path === undefined) return { path: 'database not shown without a token', kind: '', mode: '', title: `server ${health.status ?? 'unknown'}` };
  const releases = database.piWorkflows?.layoutReleases;
  const kind = database.kind === 'pi-workflows' ? `pi-workflows file${releases ? ` (${releases.join(', ')})` : ''}` : 'own database';
  const mode = database.readOnly ? 'read-only' : 'read-write';
  const reason = database.piWorkflows?.readOnlyReason;
  const title = [`database: ${database.path}`, kind, mode, reason ? `why read-only: ${reason}` : '', health.replica ? 'a replica' : '', database.error ?? ''];
  return { path: database.path, kind, mode, title: title.filter(Boolean).join('\n') };
}

/** Reads /health and shows the database line. */
export async function showServerInfo() {
  const box = $('db');
  try {
    const response = await fetch('/health', { headers: TOKEN === null ? {} : { authorization: `Bearer ${TOKEN}` } });
    const { path, kind, mode, title } = databaseLine(/** @type {Health} */ (await response.json()));
    box.replaceChildren(
      el('span', { class: 'db-path' }, path),
      ...(kind ? [el('span', { class: 'db-kind' }, kind)] : []),
      ...(mode ? [el('span', { class: `db-mode ${mode}` }, mode)] : []),
    );
    box.title = title;
    box.dataset.mode = mode;
  } catch (error) {
    box.textContent = `database unknown: ${failureText(error)}`;
  }
}
