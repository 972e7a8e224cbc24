// @ts-check
/**
 * The page's GraphQL operations come from `schema/operations/live-page.graphql` (served as
 * text at /app/operations/live-page.graphql, validated and linted with the other client
 * operations; issue 13 §4). This tiny loader splits that document into its top-level
 * definitions and builds the text of one operation with every fragment it uses: no GraphQL
 * parser in the browser, no build step.
 */

/** @typedef {{ kind: 'query' | 'mutation' | 'subscription' | 'fragment', name: string, text: string }} Definition */

const DEFINITION_START = /(query|mutation|subscription|fragment)\s+([_A-Za-z][_0-9A-Za-z]*)/y;
const SPREAD = /\.\.\.\s*([_A-Za-z][_0-9A-Za-z]*)/g;

/**
 * The text without `#` comments (outside strings) and without string contents' influence on
 * brace counting: strings are kept as they are.
 *
 * @param {string} text a GraphQL document
 * @returns {string}
 */
function stripComments(text) {
  let out = '';
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      out += char;
      if (char === '\\') {
        out += text[index + 1] ?? '';
        index += 1;
      } else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '#') {
      while (index < text.length && text[index] !== '\n') index += 1;
      out += '\n';
    } else out += char;
  }
  return out;
}

/**
 * Splits a document into its named top-level definitions (operations and fragments), in
 * document order. Block strings and anonymous operations are not supported (the page's
 * document has neither).
 *
 * @param {string} text the document text
 * @returns {Map<string, Definition>} name → definition (its text without comments)
 * @throws Error `Unnamed or unsupported definition at offset <n>` for anything else at top
 *   level; `Unbalanced braces in definition <name>`; `Duplicate definition <name>`
 */
export function parseDefinitions(text) {
  const source = stripComments(text);
  /** @type {Map<string, Definition>} */
  const definitions = new Map();
  let index = 0;
  while (index < source.length) {
    if (/\s|,/.test(source[index] ?? '')) {
      index += 1;
      continue;
    }
    DEFINITION_START.lastIndex = index;
    const match = DEFINITION_START.exec(source);
    if (match === null) throw new Error(`Unnamed or unsupported definition at offset ${index}`);
    const kind = /** @type {Definition['kind']} */ (match[1]);
    const name = /** @type {string} */ (match[2]);
    let depth = 0;
    let parens = 0;
    let inString = false;
    let end = -1;
    for (let cursor = index + match[0].length; cursor < source.length; cursor += 1) {
      const char = source[cursor];
      if (inString) {
        if (char === '\\') cursor += 1;
        else if (char === '"') inString = false;
        continue;
      }
      if (char === '"') inString = true;
      else if (char === '(') parens += 1;
      else if (char === ')') parens -= 1;
      else if (char === '{') depth += 1;
      else if (char === '}') {
        depth -= 1;
        if (depth === 0 && parens === 0) {
          end = cursor + 1;
          break;
        }
      }
    }
    if (end === -1) throw new Error(`Unbalanced braces in definition ${name}`);
    if (definitions.has(name)) throw new Error(`Duplicate definition ${name}`);
    definitions.set(name, { kind, name, text: source.slice(index, end).trim() });
    index = end;
  }
  return definitions;
}

/**
 * The text of operation `name` followed by every fragment it spreads, directly or through
 * other fragments (each once, in first-use order): what the page sends as `query`.
 *
 * @param {Map<string, Definition>} definitions from {@link parseDefinitions}
 * @param {string} name an operation name
 * @returns {string}
 * @throws Error `Unknown operation <name>`; `Unknown fragment <name> (used by <operation>)`
 */
export function operationText(definitions, name) {
  const operation = definitions.get(name);
  if (operation === undefined || operation.kind === 'fragment') throw new Error(`Unknown operation ${name}`);
  /** @type {string[]} */
  const parts = [operation.text];
  const seen = new Set();
  const visit = (/** @type {string} */ text) => {
    for (const [, fragmentName] of text.matchAll(SPREAD)) {
      if (fragmentName === 'on' || fragmentName === undefined || seen.has(fragmentName)) continue;
      const fragment = definitions.get(fragmentName);
      if (fragment === undefined || fragment.kind !== 'fragment') throw new Error(`Unknown fragment ${fragmentName} (used by ${name})`);
      seen.add(fragmentName);
      parts.push(fragment.text);
      visit(fragment.text);
    }
  };
  visit(operation.text);
  return parts.join('\n\n');
}

/**
 * Loads a document and answers every operation of it as sendable text.
 *
 * @param {(url: string) => Promise<string>} fetchText reads a URL's body as text
 * @param {string} url the document's URL (e.g. `/app/operations/live-page.graphql`)
 * @returns {Promise<Record<string, string>>} operation name → text with its fragments
 */
export async function loadOperations(fetchText, url) {
  const definitions = parseDefinitions(await fetchText(url));
  /** @type {Record<string, string>} */
  const operations = {};
  for (const definition of definitions.values()) {
    if (definition.kind !== 'fragment') operations[definition.name] = operationText(definitions, definition.name);
  }
  return operations;
}
