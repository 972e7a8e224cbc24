/**
 * `npm run bench -- --report [--file=<results.json>]`: prints the last run's results again from
 * the JSON `npm run bench` wrote (bench/results.json by default) — when and where it ran, the
 * figures table and the performance target table — without running anything.
 */
import { readFileSync } from 'node:fs';
import { renderTable, type Figure } from './stats.js';
import { renderTargetTable, type TargetRow } from '../targets.js';

/** The part of bench/results.json the report reads (written by bench/run.ts). */
export interface BenchResults {
  mode: string;
  startedAt: string;
  durationMs: number;
  node: string;
  machine: { cpus: { model: string; count: number }; loadAverageAtStart: number[]; loadAverageAtEnd?: number[] };
  benchmarks: string[];
  figures: Figure[];
  targetTable: TargetRow[];
  errors: Array<{ bench: string; error: string }>;
}

/**
 * Renders a results file's run as text: one header line, the figures, the target table and
 * any benchmark errors.
 */
export function renderReport(results: BenchResults): string {
  const load = (values: readonly number[] | undefined): string => (values ?? []).map((value) => value.toFixed(2)).join(' ');
  const met = results.targetTable.filter((row) => row.status === 'met').length;
  const held = results.targetTable.filter((row) => row.status === 'met' || row.status === 'MISSED').length;
  const lines = [
    `${results.mode} run started ${results.startedAt}, ${(results.durationMs / 1000).toFixed(1)} s, ` +
      `${String(results.machine.cpus.count)} × ${results.machine.cpus.model}, Node ${results.node}, ` +
      `load average ${load(results.machine.loadAverageAtStart)} at start, ${load(results.machine.loadAverageAtEnd)} at end`,
    `benchmarks: ${results.benchmarks.join(', ')}`,
    '',
    renderTable(results.figures),
    '',
    `Performance targets (${String(met)} of ${String(held)} measured met; each ratio against a baseline of that run):`,
    renderTargetTable(results.targetTable),
  ];
  for (const error of results.errors) lines.push('', `ERROR in ${error.bench}: ${error.error.split('\n')[0] ?? ''}`);
  return lines.join('\n');
}

/**
 * Reads a results file and renders it with {@link renderReport}.
 *
 * @throws Error naming the file when it does not exist (run `npm run bench` first) or is not a results file
 */
export function reportFromFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`no benchmark results at ${file}: run \`npm run bench\` first (it writes bench/results.json)`);
  }
  const results = JSON.parse(text) as Partial<BenchResults>;
  if (!Array.isArray(results.figures) || !Array.isArray(results.targetTable))
    throw new Error(`${file} is not a results file of \`npm run bench\` (no figures or targetTable)`);
  return renderReport(results as BenchResults);
}
