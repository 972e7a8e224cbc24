/**
 * The request body types GraphQL over HTTP is served for. `curl -d '{…}'`
 * sends `application/x-www-form-urlencoded`, which yoga would parse as a form and answer
 * "Must provide query string."; instead such a POST gets 415 saying what to send.
 */

/** POST body types yoga parses as a GraphQL request, sent back in `Accept-Post` with a 415. */
export const ACCEPTED_POST_TYPES: readonly string[] = ['application/json', 'application/graphql+json', 'application/graphql'];

/** One curl line that works, quoted in the refusal. */
const EXAMPLE = `curl -H 'content-type: application/json' -d '{"query": "{ __typename }"}' <url>/graphql`;

/**
 * Checks the `Content-Type` of a POST to GraphQL.
 *
 * @param contentType the header as received; parameters such as `charset` are ignored. The type
 *   itself must be lower case, as yoga matches it (so `Application/JSON` is told what to send
 *   rather than answered by yoga's bare 415)
 * @returns undefined for an accepted type, else the message of the 415 answer
 */
export function unsupportedContentType(contentType: string | undefined): string | undefined {
  const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
  if (ACCEPTED_POST_TYPES.includes(mediaType)) return undefined;
  const received = mediaType === '' ? 'POST without a Content-Type' : `Unsupported Content-Type ${mediaType}`;
  return (
    `${received}: send the GraphQL request as JSON, with "Content-Type: application/json" and a body like ` +
    `{"query": "…", "variables": {…}, "operationName": "…"} — for example: ${EXAMPLE}`
  );
}
