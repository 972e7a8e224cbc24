/** The committed SDL must match the code (the `schema:check` test). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, SCHEMA_FILE } from '../../src/schema/print.js';

describe('schema', () => {
  it('schema/schema.graphql equals the printed schema of the code (run `npm run schema:print` when this fails)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });
});
