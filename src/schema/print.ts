/**
 * Prints the sorted SDL of the schema.
 *
 *   tsx src/schema/print.ts --write   writes schema/schema.graphql
 *   tsx src/schema/print.ts --check   exits 1 when schema/schema.graphql differs from the code
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './index.js';

/** Path of the committed SDL. */
export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema', 'schema.graphql');

/** The printed, lexicographically sorted SDL of the code's schema, with a trailing newline. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

function main(argv: string[]): number {
  const printed = printedSchema();
  if (argv.includes('--write')) {
    writeFileSync(SCHEMA_FILE, printed);
    console.log(`wrote ${SCHEMA_FILE}`);
    return 0;
  }
  if (argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(SCHEMA_FILE, 'utf8');
    } catch {
      // missing file: differs
    }
    if (committed === printed) {
      console.log('schema/schema.graphql matches the code');
      return 0;
    }
    console.error('schema/schema.graphql differs from the code: run `npm run schema:print` and commit it');
    return 1;
  }
  process.stdout.write(printed);
  return 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
