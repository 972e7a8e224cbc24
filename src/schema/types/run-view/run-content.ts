import { dataloaderGetter } from '@pothos/plugin-dataloader';
import { GraphQLError } from 'graphql';
import { isStoreError, type BlobRef, type JsonValue, type SessionEntryContent, type ValueRef } from '../../../store/index.js';
import { builder } from '../../builder.js';
import { assertContentScope } from '../../content-scope.js';
import type { GraphQLContext } from '../../context.js';

/**
 * Large values of a run view — prompts, outputs, errors, payloads, session entries — as
 * `RunContent`: its size always, its value only when asked for, read by a per-request DataLoader
 * (one snapshot per run and batch). Content is sensitive: a caller with the `metadata` scope
 * gets null and a FORBIDDEN error naming why (docs/OPERATIONS.md "Security").
 */

/** A value of a run view by reference: the run whose view holds it and how its value is made. */
export interface ContentShape {
  runId: string;
  ref: BlobRef;
  /** How the value is made from the blob (see the store's `ValueDecoding`). */
  decode: ValueRef['decode'];
}

/** A {@link ContentShape} of a reference (plain blobs decode as `value`); null for a null reference. */
export function contentOf(runId: string, ref: BlobRef | ValueRef): ContentShape;
export function contentOf(runId: string, ref: BlobRef | ValueRef | null): ContentShape | null;
export function contentOf(runId: string, ref: BlobRef | ValueRef | null): ContentShape | null {
  if (ref === null) return null;
  return { runId, ref, decode: 'decode' in ref ? ref.decode : 'value' };
}

/** A store failure reading content, as a GraphQL error with its message (not masked). */
function readFailure(error: unknown): Error {
  return new GraphQLError(isStoreError(error) ? error.message : 'Content could not be read', { extensions: { code: 'CONTENT_UNREADABLE' } });
}

/**
 * Values by `[hash, decode]` keys (JSON text), one store read per batch. Every reference here
 * came from the store's own read of a run (a client never names a hash), so the store reads them
 * without its run-scope check (`readViewValues`).
 */
const contentValues = dataloaderGetter<string, JsonValue, string>(
  undefined,
  async (keys, context) => {
    const refs = keys.map((key) => {
      const [hash, decode] = JSON.parse(key) as [string, ValueRef['decode']];
      return { hash, decode };
    });
    return (context as GraphQLContext).store.readViewValues(refs).map((value) => (isStoreError(value) ? readFailure(value) : value));
  },
  undefined,
  false,
);

/** Session entries by hash, one store read per batch (as {@link contentValues}). */
const sessionEntries = dataloaderGetter<string, SessionEntryContent, string>(
  undefined,
  async (hashes, context) =>
    (context as GraphQLContext).store.readViewSessionEntries(hashes).map((entry) => (isStoreError(entry) ? readFailure(entry) : entry)),
  undefined,
  false,
);

/**
 * The value of a content reference, read through the request's DataLoader.
 *
 * @throws (rejects) the FORBIDDEN error of {@link assertContentScope}; a `CONTENT_UNREADABLE` error
 */
export async function loadContent(context: GraphQLContext, content: ContentShape): Promise<JsonValue> {
  assertContentScope(context);
  return contentValues(context).load(JSON.stringify([content.ref.hash, content.decode]));
}

/**
 * A captured session entry's content (role, text, tool calls), read through the request's DataLoader.
 *
 * @throws (rejects) the FORBIDDEN error of {@link assertContentScope}; a `CONTENT_UNREADABLE` error
 */
export async function loadSessionEntry(context: GraphQLContext, hash: string): Promise<SessionEntryContent> {
  assertContentScope(context);
  return sessionEntries(context).load(hash);
}

/** The text form of a value: a string as it is, anything else as indented JSON. */
function textOf(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** `RunContent`: a large value of a run view, by reference. */
export const RunContentRef = builder.objectRef<ContentShape>('RunContent').implement({
  description:
    'A large value of a run view (a prompt, an output, an error, a payload, a session entry): its size and hash always, ' +
    'its value only when selected (json or text), so a list never carries values it was not asked for. ' +
    'With a metadata-scope token json and text are null with a FORBIDDEN error (docs/OPERATIONS.md "Security").',
  fields: (t) => ({
    sha256: t.string({ description: 'SHA-256 of the stored bytes, 64 lowercase hex (the blob it is read from).', resolve: (content) => content.ref.hash }),
    byteLength: t.int({
      description: 'Size of the stored bytes (the blob it is read from: a prompt taken from a session entry is shorter than the entry).',
      resolve: (content) => content.ref.byteLength,
    }),
    mediaType: t.string({ description: 'Media type of the stored bytes: application/json or text/plain.', resolve: (content) => content.ref.mediaType }),
    json: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The value, as pi-workflows shows it: JSON as stored, text as a string; a prompt or an output kept in a captured Pi session ' +
        'entry is its text, a trace payload the event’s own payload. Null (with an error) for a metadata-scope token.',
      resolve: (content, _args, context) => loadContent(context, content),
    }),
    text: t.string({
      nullable: true,
      description: 'The value as text: a string as it is, any other value as indented JSON. Null (with an error) for a metadata-scope token.',
      resolve: async (content, _args, context) => textOf(await loadContent(context, content)),
    }),
  }),
});
