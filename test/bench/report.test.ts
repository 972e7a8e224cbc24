/**
 * `npm run bench -- --targets` and `-- --report` (bench/README.md): the targets table printed
 * from bench/targets.ts and the last results printed from the JSON a run wrote, by the real
 * command line, without running a benchmark.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReport, type BenchResults } from '../../bench/harness/report.js';
import { PERFORMANCE_TARGETS, targetRows, meets } from '../../bench/targets.js';

const REPO = join(import.meta.dirname, '..', '..');

function bench(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: REPO, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A results file of one `--only=cross-process` run with one figure held to its target. */
function results(): BenchResults {
  const figure = meets({ bench: 'cross-process', name: 'pickup', unit: 'ms', p50: 15, p99: 31, n: 50 }, 'cross-process pickup p99');
  return {
    mode: 'quick',
    startedAt: '2026-12-01T21:00:00.000Z',
    durationMs: 12_345,
    node: 'v22.15.0',
    machine: { cpus: { model: 'Test CPU', count: 2 }, loadAverageAtStart: [1, 2, 3], loadAverageAtEnd: [0.5, 0.25, 0] },
    benchmarks: ['cross-process'],
    figures: [figure],
    targetTable: targetRows([figure], ['cross-process']),
    errors: [],
  };
}

describe('bench --targets', () => {
  it('prints every target of bench/targets.ts with its bound, and runs nothing', () => {
    const { status, stdout } = bench('--targets');
    expect(status).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2 + Object.keys(PERFORMANCE_TARGETS).length);
    expect(lines[0]).toMatch(/^group +target +benchmark +bound +ratio against$/);
    expect(lines.find((line) => line.includes('cross-process pickup p99'))).toMatch(/^cross-process +cross-process pickup p99 +cross-process +p99 ≤ 30\.0 ms$/);
    expect(lines.find((line) => line.includes('fan-out 1,000 subscribers p99'))).toMatch(/ fanout +p99 ≤ 20\.0 ms$/);
    expect(lines.find((line) => line.includes('GraphQL overhead c=1'))).toMatch(/ mutation-overhead +value ≤ 25\.0 %$/);
    expect(lines.find((line) => line.includes('viewer revision write rate'))).toMatch(/ write-rate +ratio ≥ 0\.80× +raw single-row INSERT transactions$/);
  });
});

describe('bench --report', () => {
  it('prints the run, its figures and its target table from the results file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    const file = join(dir, 'results.json');
    writeFileSync(file, JSON.stringify(results()));
    const { status, stdout } = bench('--report', `--file=${file}`);
    expect(status).toBe(0);
    expect(stdout).toBe(`${renderReport(results())}\n`);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe(
      'quick run started 2026-12-01T21:00:00.000Z, 12.3 s, 2 × Test CPU, Node v22.15.0, load average 1.00 2.00 3.00 at start, 0.50 0.25 0.00 at end',
    );
    expect(lines[1]).toBe('benchmarks: cross-process');
    expect(stdout).toContain('Performance targets (0 of 1 measured met; each ratio against a baseline of that run):');
    expect(lines.find((line) => line.startsWith('cross-process pickup p99 '))).toMatch(/cross-process \/ pickup +31\.0 ms .* p99 ≤ 30\.0 ms +MISSED$/);
    expect(lines.find((line) => line.startsWith('idle CPU while subscribers wait ms/s '))).toMatch(/cross-process: no figure reported .* no figure$/);
    expect(lines.find((line) => line.startsWith('GraphQL overhead c=1 '))).toMatch(/mutation-overhead \(not selected\) .* not run$/);
  });

  it('says to run the benchmarks first when there is no results file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bench-report-')), 'results.json');
    const { status, stdout, stderr } = bench('--report', `--file=${file}`);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`no benchmark results at ${file}: run \`npm run bench\` first (it writes bench/results.json)\n`);
  });

  it('refuses a JSON file that is not a results file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bench-report-')), 'other.json');
    writeFileSync(file, '{"figures": 3}');
    const { status, stderr } = bench('--report', `--file=${file}`);
    expect(status).toBe(2);
    expect(stderr).toBe(`${file} is not a results file of \`npm run bench\` (no figures or targetTable)\n`);
  });
});
