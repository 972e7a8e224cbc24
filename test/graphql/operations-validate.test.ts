/**
 * The committed SDL builds with graphql's own `buildSchema`, and every client document in
 * `schema/operations/*.graphql` validates against it with graphql's `validate` (all files
 * together, since fragments live in their own file). A document that stops matching the
 * schema fails here before a client ships it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, Kind, NoUnusedFragmentsRule, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OPERATIONS_DIR = join(ROOT, 'schema', 'operations');
const files = readdirSync(OPERATIONS_DIR)
  .filter((name) => name.endsWith('.graphql'))
  .sort();

describe('schema/schema.graphql and schema/operations', () => {
  let schema: GraphQLSchema;

  it('the printed SDL builds with buildSchema', () => {
    schema = buildSchema(readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8'));
    expect(schema.getQueryType()?.name).toBe('Query');
    expect(schema.getMutationType()?.name).toBe('Mutation');
    expect(schema.getSubscriptionType()?.name).toBe('Subscription');
  });

  it('has operation documents', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s parses and validates against the SDL', (file) => {
    schema ??= buildSchema(readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8'));
    const own = parse(readFileSync(join(OPERATIONS_DIR, file), 'utf8'));
    // Fragments may be defined in another file: validate this file's definitions together with
    // every fragment of the other files (only the ones it uses, so NoUnusedFragments holds).
    const others = files.filter((name) => name !== file).map((name) => parse(readFileSync(join(OPERATIONS_DIR, name), 'utf8')));
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [...own.definitions, ...usedForeignFragments(own, others)] };
    // A file of shared fragments is used by the others: "never used" is checked on the whole set below.
    const rules = specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule);
    const errors = validate(schema, document, rules);
    expect(errors.map((error) => error.message)).toEqual([]);
  });

  it('all documents together validate with every rule (no unused fragment)', () => {
    schema ??= buildSchema(readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8'));
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: files.flatMap((file) => parse(readFileSync(join(OPERATIONS_DIR, file), 'utf8')).definitions),
    };
    expect(validate(schema, document).map((error) => error.message)).toEqual([]);
  });

  it('operation and fragment names are unique across all files', () => {
    const names = files.flatMap((file) =>
      parse(readFileSync(join(OPERATIONS_DIR, file), 'utf8')).definitions.flatMap((definition) =>
        'name' in definition && definition.name !== undefined ? [definition.name.value] : [],
      ),
    );
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });
});

/** Fragments of `others` that `document` spreads, directly or through other fragments. */
function usedForeignFragments(document: DocumentNode, others: DocumentNode[]): DocumentNode['definitions'] {
  const foreign = new Map(
    others
      .flatMap((other) => other.definitions)
      .flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])),
  );
  const own = new Set(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [definition.name.value] : [])));
  const used = new Map<string, DocumentNode['definitions'][number]>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as { kind?: string; name?: { value: string } };
    if (record.kind === Kind.FRAGMENT_SPREAD && record.name !== undefined) {
      const name = record.name.value;
      const definition = foreign.get(name);
      if (!own.has(name) && definition !== undefined && !used.has(name)) {
        used.set(name, definition);
        visit(definition);
      }
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'loc') visit(value);
  };
  visit(document.definitions);
  return [...used.values()];
}
