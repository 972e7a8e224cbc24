/**
 * Commits made by another process (its own WorkflowStore on the same file, like the workflow
 * host) reach the server's subscribers through the data_version watcher: every revision, in
 * order, with its content. Also measures pickup latency (child commit → client receipt) at the
 * fixture's pollIntervalMs of 25; printed, not asserted.
 */
import { describe, expect } from 'vitest';
import {
  deltaEvents,
  DELTAS_SUBSCRIPTION,
  expectedMarkerBatch,
  percentile,
  range,
  revisionsOf,
  subscribeWs,
  untilRevision,
  withoutRecordedAt,
  type DeltasData,
} from '../helpers/live-fixtures.js';
import { feedWaiters } from '../helpers/server-signals.js';
import { writerTest } from '../helpers/server-test.js';

const BURST = 20;
const SAMPLES = 50;

const it = writerTest.extend('writerRunId', { scope: 'file' }, 'run-cross');
const runId = 'run-cross';

describe('cross-process commits', () => {
  it(`${BURST} back-to-back commits of another process: every subscriber gets each revision once, in order, with its deltas`, async ({
    client,
    fx,
    writer,
  }) => {
    // From the run's current revision: the other test of this file commits on the run too.
    const start = fx.store.viewerHead(runId)?.currentRevision as number;
    const replay = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: start }, 'replay').collector;
    const live = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: null }, 'live').collector;
    await feedWaiters(fx.server, 2, 'both subscriptions wait on the feed');
    const linesBefore = writer.lines.events.length;
    writer.send(`burst ${BURST} 1`);
    await writer.lines.until((lines) => lines.slice(linesBefore).some((line) => line.done === BURST), 'the burst');
    const last = start + BURST;
    await untilRevision(replay, last);
    await untilRevision(live, last);
    const expected = range(start + 1, last).map((revision) => expectedMarkerBatch(runId, revision, revision - start));
    for (const collector of [replay, live]) {
      expect(revisionsOf(collector.events)).toEqual(range(start + 1, last));
      expect(deltaEvents(collector.events).map(withoutRecordedAt)).toEqual(expected);
    }
    // recordedAt comes from the child's own clock (real time), not the server's manual clock.
    const commits = writer.lines.events.slice(linesBefore).filter((line) => typeof line.revision === 'number') as Array<{ revision: number; at: number }>;
    deltaEvents(replay.events).forEach((event, index) => {
      const recordedAt = event.__typename === 'ViewerDeltaBatch' ? Date.parse(event.deltas[0]?.recordedAt ?? '') : Number.NaN;
      expect(recordedAt).toBeLessThanOrEqual(commits[index]?.at ?? 0);
      expect(recordedAt).toBeGreaterThan((commits[index]?.at ?? 0) - 5_000);
    });
  });

  it('pickup latency: one commit at a time, each awaited at the client', async ({ client, fx, writer }) => {
    const start = fx.store.viewerHead(runId)?.currentRevision ?? 0;
    const live = subscribeWs<DeltasData>(client, DELTAS_SUBSCRIPTION, { runId, afterRevision: start }, 'latency').collector;
    const latencies: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const k = 1_000 + sample;
      const before = writer.lines.events.length;
      // Spread over the 25 ms poll phase (else each commit lands just after a poll: biased high).
      writer.send(`one ${k} ${(sample * 7) % 25}`);
      await writer.lines.take(before + 2); // the commit line, then done
      const line = writer.lines.events[before] as { revision: number; k: number; at: number };
      expect(line.k).toBe(k);
      await untilRevision(live, line.revision);
      const index = live.events.findIndex((result) => {
        const event = result.data?.workflowRunDeltas;
        return event?.__typename === 'ViewerDeltaBatch' && event.presentationRevision === line.revision;
      });
      latencies.push((live.receivedAt[index] ?? Number.NaN) - line.at);
    }
    expect(revisionsOf(live.events)).toEqual(range(start + 1, start + SAMPLES));
    expect(deltaEvents(live.events).map(withoutRecordedAt)).toEqual(
      range(start + 1, start + SAMPLES).map((revision, index) => expectedMarkerBatch(runId, revision, 1_000 + index)),
    );
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    console.log(
      `cross-process pickup latency (pollIntervalMs 25, ${SAMPLES} samples): p50 ${p50} ms, p99 ${p99} ms, min ${Math.min(...latencies)} ms, max ${Math.max(...latencies)} ms`,
    );
    // Every revision was received. No sign check: the writer stamps `at` after its commit call
    // returned, and the server (woken by the -wal file's change event) may see the commit and
    // deliver it before that stamp, so a sample can be a few ms below 0.
    expect(latencies.every((latency) => Number.isFinite(latency))).toBe(true);
  });
});
