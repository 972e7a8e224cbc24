/**
 * relay-compiler (the native binary its npm package ships) compiles a Relay document set against
 * the committed SDL with zero errors and zero warnings: `@connection` on both
 * connections (`workflowRuns` both ways, `WorkflowRun.lineage`), `@refetchable` on Query and on
 * the `Node` type WorkflowRun, three subscriptions and a mutation reading typed errors through
 * `Error` (documents: test/clients/relay/). The queries Relay generates (including the
 * `node(id)` refetch query) then run on the live server without errors.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/live-fixtures.js';
import { reserve, reserveInput, startTestServer, type TestServer } from '../helpers/server-fixture.js';

const SOURCES = join(REPO_ROOT, 'test', 'clients', 'relay');
const COMPILER = join(REPO_ROOT, 'node_modules', 'relay-compiler', 'cli.js');

describe('relay-compiler', () => {
  let dir: string;
  let compile: ReturnType<typeof spawnSync>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pi-workflows-relay-'));
    mkdirSync(join(dir, 'src', '__generated__'), { recursive: true });
    for (const name of readdirSync(SOURCES)) copyFileSync(join(SOURCES, name), join(dir, 'src', name));
    copyFileSync(join(REPO_ROOT, 'schema', 'schema.graphql'), join(dir, 'schema.graphql'));
    writeFileSync(
      join(dir, 'relay.config.json'),
      JSON.stringify({ src: './src', schema: './schema.graphql', language: 'typescript', artifactDirectory: './src/__generated__' }),
    );
    compile = spawnSync(process.execPath, [COMPILER], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles the document set with zero errors and zero warnings', () => {
    const output = `${String(compile.stdout)}${String(compile.stderr)}`;
    expect(compile.status, output).toBe(0);
    expect(output).toContain('Compilation completed.');
    expect(output).not.toMatch(/ERROR|WARN/);
    expect(readdirSync(join(dir, 'src', '__generated__')).sort()).toEqual([
      'RunLineageRelayQuery.graphql.ts',
      'RunLineageRelayRefetchQuery.graphql.ts',
      'RunLineageRelay_run.graphql.ts',
      'RunListRelayQuery.graphql.ts',
      'RunListRelayRefetchQuery.graphql.ts',
      'RunListRelay_query.graphql.ts',
      'RunUpdatesRelayChainSubscription.graphql.ts',
      'RunUpdatesRelayClaimMutation.graphql.ts',
      'RunUpdatesRelayDeltasSubscription.graphql.ts',
      'RunUpdatesRelaySubscription.graphql.ts',
    ]);
  });

  describe('the generated queries on the live server', () => {
    let fx: TestServer;
    beforeAll(async () => {
      fx = await startTestServer();
      for (const runId of ['run-1', 'run-2', 'run-3']) await reserve(fx, reserveInput(runId, { originSessionId: `session-${runId}` }));
    });
    afterAll(() => fx.close());

    /** The operation text Relay generated for an artifact. */
    const textOf = (artifact: string): string => {
      const source = readFileSync(join(dir, 'src', '__generated__', `${artifact}.graphql.ts`), 'utf8');
      const literal = /"text": ("(?:[^"\\]|\\.)*")/.exec(source)?.[1];
      expect(literal, artifact).toBeDefined();
      return JSON.parse(literal as string) as string;
    };

    it('the list query pages both ways; the node(id) refetch query returns the run', async () => {
      const first = await fx.gql<{ workflowRuns: { edges: Array<{ cursor: string; node: { id: string; runId: string } }> } }, unknown>(
        textOf('RunListRelayQuery'),
        { first: 2 },
      );
      expect(first.errors).toBeUndefined();
      expect(first.data?.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['run-3', 'run-2']);
      const back = await fx.gql<{ workflowRuns: { edges: Array<{ node: { runId: string } }> } }, unknown>(textOf('RunListRelayRefetchQuery'), {
        first: null, // as Relay's loadPrevious sends it: the fragment's default first would otherwise apply
        last: 1,
        before: first.data?.workflowRuns.edges[1]?.cursor,
      });
      expect(back.errors).toBeUndefined();
      expect(back.data?.workflowRuns.edges.map((edge) => edge.node.runId)).toEqual(['run-3']);
      const id = first.data?.workflowRuns.edges[0]?.node.id;
      const refetched = await fx.gql<{ node: { id: string; runId: string } }, unknown>(textOf('RunLineageRelayRefetchQuery'), { id, lineageFirst: 5 });
      expect(refetched.errors).toBeUndefined();
      expect(refetched.data?.node).toMatchObject({ __typename: 'WorkflowRun', id, runId: 'run-3' });
      const lineage = await fx.gql(textOf('RunLineageRelayQuery'), { runId: 'run-1' });
      expect(lineage.errors).toBeUndefined();
    });
  });
});
