/**
 * The lint rules of the layers and of the file layout (eslint.config.js): each fails on a small
 * offending snippet and passes a clean one, linted with the project's own configuration as if
 * it were a file of the folder it names (ESLint's Node API, `lintText` with that `filePath`).
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** The rule ids of the problems ESLint reports for `code` as the file at `filePath`. */
async function ruleIds(code: string, filePath: string): Promise<Array<string | null>> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId);
}

describe('lint: upward imports between the layers', () => {
  it.each([
    ['src/store/run-claims.ts', "import { ChangeFeed } from '../delivery/index.js';\nexport const feed = ChangeFeed;\n"],
    ['src/store/layout/own-file.ts', "import { buildSchema } from '../../schema/index.js';\nexport const schema = buildSchema;\n"],
    ['src/delivery/feed-follow.ts', "import { buildSchema } from '../schema/index.js';\nexport const schema = buildSchema;\n"],
    ['src/delivery/feed-follow.ts', "import { main } from '../server/main.js';\nexport const start = main;\n"],
    ['src/schema/errors.ts', "import { main } from '../server/main.js';\nexport const start = main;\n"],
    ['src/client/http.ts', "import { WorkflowStore } from '../store/index.js';\nexport const store = WorkflowStore;\n"],
  ])('%s: an upward import fails', async (filePath, code) => {
    expect(await ruleIds(code, filePath)).toContain('no-restricted-imports');
  });

  it.each([
    ['src/delivery/feed-follow.ts', "import { WorkflowStore } from '../store/index.js';\nexport const store = WorkflowStore;\n"],
    ['src/schema/errors.ts', "import { WorkflowStore } from '../store/index.js';\nexport const store = WorkflowStore;\n"],
    ['src/server/main.ts', "import { buildSchema } from '../schema/index.js';\nexport const schema = buildSchema;\n"],
    [
      'src/client/http.ts',
      "import type { TypedDocumentString } from '../../schema/generated/graphql.js';\nexport type Document = TypedDocumentString<unknown, unknown>;\n",
    ],
  ])('%s: a downward import passes', async (filePath, code) => {
    expect(await ruleIds(code, filePath)).not.toContain('no-restricted-imports');
  });
});

describe('lint: the file kind is asked in src/store/layout/ only', () => {
  const asking = [
    "import type { StateFile } from './layout/state-file.js';\nexport const isPi = (file: StateFile): boolean => file.kind === 'pi-workflows';\n",
    "import type { StateFile } from './layout/state-file.js';\nexport const isOwn = (store: { file: StateFile }): boolean => store.file.kind !== 'own';\n",
    "export function label(kind: string): string {\n  switch (kind) {\n    case 'own':\n      return 'ours';\n    default:\n      return 'theirs';\n  }\n}\n",
    'export const indexed = (context: { runIndex?: object }): boolean => context.runIndex !== undefined;\n',
  ];

  it.each(asking.map((code) => ['src/store/run-claims.ts', code]))('%s: asking the file kind fails (%#)', async (filePath, code) => {
    expect(await ruleIds(code, filePath)).toContain('no-restricted-syntax');
  });

  it('outside the store too', async () => {
    expect(await ruleIds(asking[0] as string, 'src/server/database/state-file.ts')).toContain('no-restricted-syntax');
  });

  it.each(asking.map((code) => ['src/store/layout/index.ts', code]))('%s: the layout asks it (%#)', async (filePath, code) => {
    expect(await ruleIds(code, filePath)).not.toContain('no-restricted-syntax');
  });

  it('a clean store module passes', async () => {
    const code =
      "import type { StoreContext } from './store-context.js';\nexport const changes = (context: StoreContext) => context.layout.runChanges.head();\n";
    expect(await ruleIds(code, 'src/store/run-claims.ts')).toEqual([]);
  });
});
