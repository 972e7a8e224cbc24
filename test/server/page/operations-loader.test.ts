/**
 * The page's operation loader (src/server/public/operations.js) over the real document the
 * page loads, `schema/operations/live-page.graphql`: every operation comes out with exactly
 * the fragments it uses, and each text validates against the schema on its own.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadOperations, operationText, parseDefinitions } from '../../../src/server/public/operations.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PAGE_DOCUMENT = readFileSync(join(ROOT, 'schema', 'operations', 'live-page.graphql'), 'utf8');

describe('parseDefinitions / operationText', () => {
  const text = `# leading comment
query A($id: String!, $o: In = { x: 1 }) { a(id: $id) { ...F # trailing } brace
  ... on T { b } } }
fragment F on X { id ...G }
fragment G on X { name(arg: "a # not a comment }") }
fragment Unused on X { id }
subscription S { s { ...G } }`;

  it('splits named definitions, strips comments, keeps strings', () => {
    const definitions = parseDefinitions(text);
    expect([...definitions.keys()]).toEqual(['A', 'F', 'G', 'Unused', 'S']);
    expect(definitions.get('A')?.kind).toBe('query');
    expect(definitions.get('S')?.kind).toBe('subscription');
    expect(definitions.get('G')?.text).toBe('fragment G on X { name(arg: "a # not a comment }") }');
  });

  it('an operation comes with the fragments it uses, transitively, once each', () => {
    const definitions = parseDefinitions(text);
    expect(
      operationText(definitions, 'A')
        .split('\n\n')
        .map((part) => part.split(/\s/)[1]),
    ).toEqual(['A($id:', 'F', 'G']);
    expect(operationText(definitions, 'S')).toBe('subscription S { s { ...G } }\n\nfragment G on X { name(arg: "a # not a comment }") }');
  });

  it('errors: unknown operation, fragment passed as operation, missing fragment, anonymous, unbalanced, duplicate', () => {
    const definitions = parseDefinitions(text);
    expect(() => operationText(definitions, 'Nope')).toThrow('Unknown operation Nope');
    expect(() => operationText(definitions, 'F')).toThrow('Unknown operation F');
    expect(() => operationText(parseDefinitions('query Q { ...Missing }'), 'Q')).toThrow('Unknown fragment Missing (used by Q)');
    expect(() => parseDefinitions('{ a }')).toThrow('Unnamed or unsupported definition at offset 0');
    expect(() => parseDefinitions('query Q { a ')).toThrow('Unbalanced braces in definition Q');
    expect(() => parseDefinitions('query Q { a } query Q { b }')).toThrow('Duplicate definition Q');
  });
});

describe('schema/operations/live-page.graphql through the loader', () => {
  it('every operation validates against the SDL on its own (its fragments included, none unused)', async () => {
    const schema = buildSchema(readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8'));
    const operations = await loadOperations(async (url) => {
      expect(url).toBe('/app/operations/live-page.graphql');
      return PAGE_DOCUMENT;
    }, '/app/operations/live-page.graphql');
    expect(Object.keys(operations).length).toBeGreaterThanOrEqual(5);
    for (const [name, query] of Object.entries(operations)) {
      expect(name).toMatch(/^LivePage/);
      expect(
        validate(schema, parse(query)).map((error) => error.message),
        name,
      ).toEqual([]);
    }
  });
});
