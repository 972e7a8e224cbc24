/**
 * The typed client as a package entry (docs/IDE.md "The typed client"): package.json's
 * `exports["./client"]` names the files `npm run build` emits for `src/client/index.ts`
 * (tsconfig.client.json), and the client's modules import nothing a browser lacks: no `node:`
 * module, no `ws`, only `graphql-ws` and their own relative files (the generated documents
 * included). The package manifest publishes them (and the server's bin); the packed package
 * itself, installed and imported from Node and from an esbuild browser bundle, is tested by
 * test/e2e/npx-package.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/live-fixtures.js';

const CLIENT_DIR = join(REPO_ROOT, 'src', 'client');

/** The module specifiers a TypeScript file imports or re-exports (type-only imports left out). */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)].map((match) => match[1] as string);
}

describe('pi-workflows-graphql/client', () => {
  it('exports types and import from what tsconfig.client.json emits for src/client/index.ts', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const config = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.client.json'), 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string; declaration: boolean };
      include: string[];
    };
    expect(config.include).toEqual(['src/client']);
    expect(config.compilerOptions).toMatchObject({ rootDir: '.', outDir: 'dist/client', declaration: true });
    expect(manifest.exports['./client']).toEqual({
      types: './dist/client/src/client/index.d.ts',
      import: './dist/client/src/client/index.js',
    });
    const build = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')) as { exclude?: string[] };
    expect(build.exclude).toEqual(['src/client']); // the server build leaves it to tsconfig.client.json
  });

  it('the client modules import only graphql-ws and relative files: they run in browsers', () => {
    const files = readdirSync(CLIENT_DIR).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    const foreign = files.flatMap((name) =>
      importsOf(join(CLIENT_DIR, name))
        .filter((specifier) => !specifier.startsWith('.') && specifier !== 'graphql-ws')
        .map((specifier) => `${name}: ${specifier}`),
    );
    expect(foreign).toEqual([]);
    const generated = importsOf(join(REPO_ROOT, 'schema', 'generated', 'graphql.ts'));
    expect(generated).toEqual([]); // only a type import (erased)
    for (const name of files) expect(readFileSync(join(CLIENT_DIR, name), 'utf8'), name).not.toMatch(/\bBuffer\b|\bprocess\.|require\(/);
  });

  it('the package publishes the built client and the server bin; the run-time dependencies are what runs', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      private?: boolean;
      bin: Record<string, string>;
      files: string[];
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ 'pi-workflows-graphql': 'dist/server/main.js' });
    expect(manifest.files).toEqual(expect.arrayContaining(['dist/', 'migrations/', 'schema/schema.graphql', 'schema/operations/', 'npm-shrinkwrap.json']));
    expect(manifest.scripts.prepack).toBe('npm run build && node scripts/shrinkwrap.mjs');
    // tsx and esbuild are development tools: the bin runs compiled JavaScript.
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
    expect(Object.keys(manifest.devDependencies)).toEqual(expect.arrayContaining(['tsx', 'esbuild']));
    // The client's declarations import it, so a consumer's type check needs it installed.
    expect(Object.keys(manifest.dependencies)).toEqual(expect.arrayContaining(['graphql-ws', '@graphql-typed-document-node/core']));
    expect(readFileSync(join(REPO_ROOT, 'src', 'server', 'main.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});
