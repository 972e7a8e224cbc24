/**
 * `schema/generated/` must be what `npm run codegen` produces from the committed SDL and the
 * operations in `schema/operations/`: the generator runs in memory with the repo's own
 * `codegen.ts` and every output is compared with the committed file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config, { GENERATED_DIR } from '../../codegen.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('codegen', () => {
  it('committed schema/generated/ equals a fresh generation (run `npm run codegen` when this fails)', async () => {
    const outputs = (await generate({ ...config, cwd: ROOT, silent: true, errorsOnly: true }, false)) as Array<{
      filename: string;
      content: string;
    }>;
    const generated = new Map(outputs.map((output) => [relative(ROOT, join(ROOT, output.filename)), output.content]));
    expect([...generated.keys()].sort()).toEqual(
      readdirSync(join(ROOT, GENERATED_DIR))
        .map((name) => join(GENERATED_DIR, name))
        .sort(),
    );
    for (const [path, content] of generated) {
      expect(readFileSync(join(ROOT, path), 'utf8'), `${path} is stale: run npm run codegen`).toBe(content);
    }
  });

  it('covers every query and mutation field of the schema with an operation', () => {
    const operations = readdirSync(join(ROOT, 'schema', 'operations'))
      .map((name) => readFileSync(join(ROOT, 'schema', 'operations', name), 'utf8'))
      .join('\n');
    const sdl = readFileSync(join(ROOT, 'schema', 'schema.graphql'), 'utf8');
    const rootFields = (type: string): string[] => {
      const body = new RegExp(`^type ${type} \\{([^}]*)\\}`, 'm').exec(sdl)?.[1] ?? '';
      return [...body.matchAll(/^ {2}(\w+)[(:]/gm)].map((match) => match[1] as string);
    };
    const fields = [...rootFields('Query'), ...rootFields('Mutation')];
    expect(fields.length).toBeGreaterThanOrEqual(8);
    for (const field of fields) expect(operations, field).toMatch(new RegExp(`\\b${field}\\(`));
  });
});
