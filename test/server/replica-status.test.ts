/**
 * The replica's measure of its lag (docs/DEPLOYMENT.md "Read replicas"): a primary that stops
 * answering, or answers without its position, leaves the lag unknown (null), never the last
 * good answer's. The primary here is a node:http server on loopback answering `/health` as told.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReplicaStatus, type ReplicaStatus } from '../../src/server/database/replica.js';
import type { ReplicaFileState, ReplicaFollower } from '../../src/store/index.js';

let server: Server | undefined;
let status: ReplicaStatus | undefined;

afterEach(async () => {
  status?.close();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** A primary whose `/health` answers `answer()` (status and body). */
async function primary(answer: () => { status: number; body: unknown }): Promise<string> {
  server = createServer((_request, response) => {
    const { status: code, body } = answer();
    response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
}

/** A follower whose file holds `position` of database `db-1`. */
function follower(position: () => number): ReplicaFollower {
  const state = (): ReplicaFileState => ({
    head: { databaseId: 'db-1', head: position(), floor: 0 } as ReplicaFileState['head'],
    reopens: 0,
    lastReopenAt: null,
    lastReopenMs: null,
    lastError: null,
  });
  return { state } as unknown as ReplicaFollower;
}

describe('replica lag', () => {
  it('is unknown while the primary does not answer with its position, and measured again once it does', async () => {
    let answer = { status: 200, body: { database: { runChanges: { databaseId: 'db-1', head: 20 } } } as unknown };
    const url = await primary(() => answer);
    let t = 1_000_000;
    const standings: string[] = [];
    status = createReplicaStatus(
      follower(() => 18),
      {
        primaryUrl: url,
        primaryToken: null,
        pollMs: 3_600_000,
        now: () => t,
        onStanding: (standing) => standings.push(standing),
      },
    );
    await status.pollPrimary();
    t += 2_000;
    expect(status.health()).toMatchObject({ primaryPosition: 20, positionsBehind: 2, lagSeconds: 2, primaryError: null });

    answer = { status: 401, body: { error: 'token required' } };
    await status.pollPrimary();
    expect(status.health()).toMatchObject({
      positionsBehind: null,
      lagSeconds: null,
      primaryError: `${new URL('/health', url).toString()}: answered 401 without database.runChanges (a token for it missing?)`,
    });

    answer = { status: 200, body: { database: { runChanges: { databaseId: 'db-1', head: 21 } } } };
    t += 1_000;
    await status.pollPrimary();
    expect(status.health()).toMatchObject({ primaryPosition: 21, positionsBehind: 3, lagSeconds: 3, primaryError: null });
    expect(standings).toEqual(['behind', 'unknown', 'behind']);
  });
});
