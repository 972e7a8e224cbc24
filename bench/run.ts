/**
 * `npm run bench [-- --quick] [-- --only=name,…] [-- --profile]`: runs the benchmarks one after
 * another, prints progress lines and a table, and writes bench/results.json with machine
 * info, the Node version and every figure.
 *
 * Benchmarks report; they never fail on a missed target (the table says MISSED next to it
 * and the exit code stays 0). Only a benchmark that crashes makes the exit code 1.
 *
 * --quick    smaller sizes and shorter durations (under a minute)
 * --only     run only the named benchmarks (see BENCHMARKS below)
 * --profile  run the server children under `node --cpu-prof` and print their hottest functions
 * --targets  print the performance targets (bench/targets.ts) and exit; runs nothing
 * --report   print the last results again (bench/results.json, or --file=<path>) and exit
 * --help     the options and the benchmark names
 *
 * After the figures it prints the performance target table (bench/targets.ts): each target's
 * figure, its baseline of the same run, the ratio, the bound and met/MISSED; written to
 * bench/results.json as `targetTable`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, arch, totalmem, tmpdir, type as osType } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchContext } from './harness/bench-context.js';
import { summarizeProfiles } from './harness/cpu-profile.js';
import { measureCompiledExecution } from './compiled-execution.js';
import { measureCrossProcess } from './cross-process.js';
import { measureFanout } from './fanout.js';
import { REPO_ROOT } from './harness/ipc.js';
import { measureLineageDepth } from './lineage-depth.js';
import { measureLockWait } from './lock-wait.js';
import { measureLiveQueries } from './live-queries.js';
import { measureMutationOverhead } from './mutation-overhead.js';
import { measurePiWorkflowsFile } from './pi-workflows-file.js';
import { measurePiWorkflowsWrites } from './pi-workflows-writes.js';
import { measureRunChanges } from './run-changes.js';
import { measureRunLists } from './run-lists.js';
import { measureScale } from './scale.js';
import { renderTable, type Figure } from './harness/stats.js';
import { reportFromFile } from './harness/report.js';
import { renderTargetCatalogue, renderTargetTable, targetRows } from './targets.js';
import { measureView } from './view.js';
import { measureWorkers } from './workers.js';
import { measureWriteRate } from './write-rate.js';

/** Where a run writes its results and `--report` reads them. */
const RESULTS_FILE = join(REPO_ROOT, 'bench', 'results.json');

const BENCHMARKS: Record<string, (context: BenchContext) => Promise<Figure[]>> = {
  'mutation-overhead': measureMutationOverhead,
  'lineage-depth': measureLineageDepth,
  'run-lists': measureRunLists,
  fanout: measureFanout,
  'cross-process': measureCrossProcess,
  'write-rate': measureWriteRate,
  'lock-wait': measureLockWait,
  scale: measureScale,
  'pi-workflows-file': measurePiWorkflowsFile,
  'pi-workflows-writes': measurePiWorkflowsWrites,
  'run-changes': measureRunChanges,
  'live-queries': measureLiveQueries,
  workers: measureWorkers,
  'compiled-execution': measureCompiledExecution,
  view: measureView,
};

function machineInfo(): Record<string, unknown> {
  const cpuList = cpus();
  return {
    os: { type: osType(), platform: platform(), release: release(), arch: arch() },
    cpus: { model: cpuList[0]?.model ?? 'unknown', count: cpuList.length },
    memory: { totalBytes: totalmem(), freeBytesAtStart: freemem() },
    loadAverageAtStart: loadavg(),
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'usage: npx tsx bench/run.ts [--quick] [--only=name,…] [--profile] | --targets | --report [--file=<results.json>]\n' +
        '  --quick    smaller sizes and shorter durations\n' +
        '  --only     run only these benchmarks (comma-separated)\n' +
        '  --profile  run server children under node --cpu-prof and print their hottest functions\n' +
        '  --targets  print the performance targets (bench/targets.ts); runs nothing\n' +
        '  --report   print the last results again (bench/results.json or --file=<path>); runs nothing\n' +
        `benchmarks: ${Object.keys(BENCHMARKS).join(', ')}\n`,
    );
    return 0;
  }
  if (argv.includes('--targets')) {
    process.stdout.write(`${renderTargetCatalogue()}\n`);
    return 0;
  }
  if (argv.includes('--report')) {
    const fileArg = argv.find((arg) => arg.startsWith('--file='));
    const file = fileArg === undefined ? RESULTS_FILE : resolve(fileArg.slice('--file='.length));
    try {
      process.stdout.write(`${reportFromFile(file)}\n`);
    } catch (error) {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    return 0;
  }
  const quick = argv.includes('--quick');
  const profile = argv.includes('--profile');
  const onlyArg = argv.find((arg) => arg.startsWith('--only='));
  const only = onlyArg === undefined ? Object.keys(BENCHMARKS) : onlyArg.slice('--only='.length).split(',').filter(Boolean);
  const unknown = only.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}\n`);
    return 2;
  }
  const started = Date.now();
  const profileDir = profile ? mkdtempSync(join(tmpdir(), 'bench-profiles-')) : undefined;
  const progress = (text: string): void => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
    process.stdout.write(`[${seconds}s] ${text}\n`);
  };
  const context: BenchContext = { quick, progress, ...(profileDir === undefined ? {} : { profileDir }) };
  const machine = machineInfo();
  progress(
    `benchmarks (${quick ? 'quick' : 'full'} mode) on ${String((machine.cpus as { count: number }).count)} × ${String((machine.cpus as { model: string }).model)}, ` +
      `Node ${process.version}, load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
  );

  const figures: Figure[] = [];
  const errors: Array<{ bench: string; error: string }> = [];
  const timings: Record<string, number> = {};
  for (const name of only) {
    const benchStarted = Date.now();
    progress(`── ${name}`);
    try {
      const result = await (BENCHMARKS[name] as (context: BenchContext) => Promise<Figure[]>)(context);
      figures.push(...result);
    } catch (error) {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      errors.push({ bench: name, error: text });
      progress(`${name}: ERROR ${text}`);
      figures.push({ bench: name, name: 'ERROR', unit: '', note: text.split('\n')[0] ?? text });
    }
    timings[name] = Date.now() - benchStarted;
    progress(`${name}: done in ${(timings[name] / 1000).toFixed(1)} s`);
  }

  const table = renderTable(figures);
  process.stdout.write(`\n${table}\n\n`);
  const missed = figures.filter((figure) => figure.met === false);
  const withTargets = figures.filter((figure) => figure.met !== undefined);
  process.stdout.write(
    `Targets: ${withTargets.length - missed.length} of ${withTargets.length} met` +
      (missed.length === 0 ? '' : `; MISSED: ${missed.map((figure) => `${figure.bench} / ${figure.name}`).join(', ')}`) +
      '\n',
  );
  const targetTable = targetRows(figures, only);
  process.stdout.write(`\nPerformance targets (each ratio against a baseline of this run):\n${renderTargetTable(targetTable)}\n`);

  let profiles: unknown;
  if (profileDir !== undefined) {
    const summary = summarizeProfiles(profileDir, 15);
    profiles = { directory: profileDir, summary };
    process.stdout.write(`\nCPU profiles of the server children (${profileDir}):\n`);
    for (const entry of summary) {
      process.stdout.write(`\n${entry.file} (${(entry.totalMs / 1000).toFixed(1)} s sampled) — top self time:\n`);
      for (const row of entry.top) {
        process.stdout.write(`  ${row.selfMs.toFixed(0).padStart(7)} ms  ${row.percent.toFixed(1).padStart(5)} %  ${row.functionName}  ${row.location}\n`);
      }
    }
  }

  const results = {
    mode: quick ? 'quick' : 'full',
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    node: process.version,
    versions: { v8: process.versions.v8, sqlite: process.versions.sqlite ?? null },
    machine: { ...machine, loadAverageAtEnd: loadavg() },
    benchmarks: only,
    timingsMs: timings,
    figures,
    targets: { met: withTargets.length - missed.length, total: withTargets.length, missed: missed.map((figure) => `${figure.bench} / ${figure.name}`) },
    targetTable,
    errors,
    ...(profiles === undefined ? {} : { profiles }),
  };
  mkdirSync(join(REPO_ROOT, 'bench'), { recursive: true });
  const file = RESULTS_FILE;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  progress(`wrote ${file} (${((Date.now() - started) / 1000).toFixed(1)} s in all)`);
  return errors.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
