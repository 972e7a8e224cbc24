/**
 * The page's operations: the server splits `schema/operations/live-page.graphql` with
 * graphql-js's `separateOperations` (src/server/page/page-operations.ts) and serves the result at
 * `/app/operations/live-page.json`; the page's loader (src/server/public/operations.js) reads
 * it. Every operation comes out with exactly the fragments it uses, and each text validates
 * against the schema on its own.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, Kind, parse, validate, visit, type DocumentNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { separatedOperations } from '../../../src/server/page/page-operations.js';
import { loadOperations } from '../../../src/server/public/operations.js';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Names of a document's definitions, in document order. */
const definitionNames = (document: DocumentNode): string[] =>
  document.definitions.map((definition) => ('name' in definition && definition.name !== undefined ? definition.name.value : ''));

/** The fragments an operation spreads, directly or through other fragments, over the whole source document. */
function fragmentsUsed(source: DocumentNode, operationName: string): Set<string> {
  const byName = new Map(source.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d] as const));
  const used = new Set<string>();
  const walk = (node: Parameters<typeof visit>[0]): void => {
    visit(node, {
      FragmentSpread(spread) {
        if (used.has(spread.name.value)) return;
        used.add(spread.name.value);
        const fragment = byName.get(spread.name.value);
        if (fragment !== undefined) walk(fragment);
      },
    });
  };
  const operation = source.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName);
  if (operation === undefined) throw new Error(`no operation ${operationName}`);
  walk(operation);
  return used;
}

describe('separatedOperations', () => {
  const text = `# leading comment
query A($id: String!, $o: In = { x: 1 }) { a(id: $id) { ...F # trailing } brace
  ... on T { b } } }
fragment F on X { id ...G }
fragment G on X { name(arg: "a # not a comment }") }
fragment Unused on X { id }
subscription S { s { ...G } }`;

  it('every operation, with the fragments it uses, transitively, once each, in document order; comments dropped, strings kept', () => {
    const operations = separatedOperations(text);
    expect(Object.keys(operations)).toEqual(['A', 'S']);
    expect(definitionNames(parse(operations.A as string))).toEqual(['A', 'F', 'G']);
    expect(operations.S).toBe('fragment G on X {\n  name(arg: "a # not a comment }")\n}\n\nsubscription S {\n  s {\n    ...G\n  }\n}');
    expect(operations.A).not.toContain('trailing');
  });

  it('a document that does not parse: the GraphQL syntax error', () => {
    expect(() => separatedOperations('query Q { a ')).toThrow('Syntax Error: Expected Name, found <EOF>.');
  });
});

describe('/app/operations/live-page.json through the page loader', () => {
  let fx: TestServer;
  let base: string;
  beforeAll(async () => {
    fx = await startTestServer();
    base = fx.url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await fx.close();
  });

  it('every operation of live-page.graphql, with exactly the fragments it uses (document order), validates against the SDL on its own', async () => {
    const source = parse(readFileSync(join(ROOT, 'schema', 'operations', 'live-page.graphql'), 'utf8'));
    const schema = buildSchema(readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8'));
    const operations = await loadOperations(async (url) => {
      expect(url).toBe('/app/operations/live-page.json');
      const response = await fetch(`${base}${url}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      return response.text();
    }, '/app/operations/live-page.json');
    const operationNames = source.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d.name?.value ?? ''] : []));
    expect(operationNames.length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(operations)).toEqual(operationNames);
    for (const [name, query] of Object.entries(operations)) {
      expect(name).toMatch(/^LivePage/);
      const document = parse(query);
      const used = fragmentsUsed(source, name);
      expect(definitionNames(document), name).toEqual(definitionNames(source).filter((n) => n === name || used.has(n)));
      expect(
        validate(schema, document).map((error) => error.message),
        name,
      ).toEqual([]);
    }
  });

  it('a body of another shape: a clear error', async () => {
    await expect(loadOperations(async () => '["query Q { a }"]', '/x.json')).rejects.toThrow('/x.json: not an object of operation texts');
    await expect(loadOperations(async () => '{"Q": 1}', '/x.json')).rejects.toThrow('/x.json: not an object of operation texts');
  });
});
