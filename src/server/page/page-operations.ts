/**
 * The client operation documents of `schema/operations/` split per operation for the live
 * page: graphql-js's `separateOperations` gives, for each named operation of a
 * document, a document holding that operation and exactly the fragments it uses (directly or
 * through other fragments); `print` gives its text. The page fetches the result as JSON and
 * sends each text as `query` — no GraphQL parser in the browser, no hand-written one here.
 */
import { readFileSync } from 'node:fs';
import { parse, print, separateOperations } from 'graphql';

/**
 * Every operation of a GraphQL document as sendable text, each with exactly the fragments it
 * uses.
 *
 * @param text a GraphQL document (operations and fragments)
 * @returns operation name → printed text of that operation and its fragments, in the
 *   document's order; an anonymous operation is keyed '' (graphql-js's `separateOperations`)
 * @throws GraphQLError when the text is not a valid GraphQL document (syntax)
 */
export function separatedOperations(text: string): Record<string, string> {
  const operations: Record<string, string> = {};
  for (const [name, document] of Object.entries(separateOperations(parse(text)))) operations[name] = print(document);
  return operations;
}

/** file path → its operations as JSON (each file read and parsed once, on first request). */
const cache = new Map<string, string>();

/**
 * The JSON body answering `GET /app/operations/<name>.json`: {@link separatedOperations} of the
 * `.graphql` file at `file`, read and parsed on the first call for that file, then cached
 * (the operation documents do not change while the server runs).
 *
 * @param file absolute path of a `.graphql` document
 * @returns `{ [operationName]: text }` as JSON text, or undefined when the file cannot be read
 * @throws GraphQLError when the file is not a valid GraphQL document
 */
export function separatedOperationsJson(file: string): string | undefined {
  const cached = cache.get(file);
  if (cached !== undefined) return cached;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const json = JSON.stringify(separatedOperations(text));
  cache.set(file, json);
  return json;
}
