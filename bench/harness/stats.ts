/**
 * Percentiles, histograms, the result record of one measured figure, and the text table the
 * benchmark prints. No measurement happens here.
 */

/** One measured figure as printed and written to bench/results.json. */
export interface Figure {
  /** The benchmark it belongs to (`mutation-overhead`, `lineage-depth`, …). */
  bench: string;
  /** What was measured, e.g. `reserve c=8`. */
  name: string;
  /** Unit of p50/p99/value (`ms`, `µs`, `ops/s`, `%`, `statements`, `bytes`, …). */
  unit: string;
  p50?: number;
  p99?: number;
  /** Operations per second, when the figure is a rate. */
  rate?: number;
  /** A single derived value (overhead, ratio, memory per subscriber, …). */
  value?: number;
  /** Number of samples or operations behind the figure. */
  n?: number;
  /** Name of the figure in the same run this one is compared with. */
  baseline?: string;
  /** This figure ÷ its baseline (p50 for latencies, rate for rates). */
  ratio?: number;
  /** The target as text, e.g. `≤ 25 %`. */
  target?: string;
  /** Whether the target was met (absent when the figure has no target). */
  met?: boolean;
  /** Anything a reader needs to interpret the figure. */
  note?: string;
}

/**
 * Nearest-rank percentile of a sorted ascending array.
 *
 * @param sorted samples, ascending
 * @param p percentile, 0 … 100
 * @returns NaN for an empty array
 */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** p50 and p99 of unsorted samples (the input is not modified). */
export function summarize(samples: readonly number[]): { p50: number; p99: number; n: number; mean: number } {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    p50: percentileOfSorted(sorted, 50),
    p99: percentileOfSorted(sorted, 99),
    n: sorted.length,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** Median of a few numbers (the input is not modified). */
export function median(values: readonly number[]): number {
  return summarize(values).p50;
}

/**
 * A histogram of non-negative integer samples (ms latencies from `Date.now()`): bucket i
 * counts samples equal to i; larger samples land in the last bucket. Mergeable across
 * processes as plain arrays.
 */
export class IntHistogram {
  readonly counts: number[];

  constructor(size = 60_001) {
    this.counts = new Array<number>(size).fill(0);
  }

  /** Adds one sample (rounded, clamped to 0 … size − 1). */
  add(value: number): void {
    const index = Math.min(this.counts.length - 1, Math.max(0, Math.round(value)));
    this.counts[index] = (this.counts[index] as number) + 1;
  }

  /** Adds another histogram's counts (same size or smaller). */
  merge(counts: readonly number[]): void {
    counts.forEach((count, index) => {
      if (count !== 0) this.counts[index] = (this.counts[index] as number) + count;
    });
  }

  /** Number of samples. */
  get total(): number {
    let total = 0;
    for (const count of this.counts) total += count;
    return total;
  }

  /** Nearest-rank percentile; NaN when empty. */
  percentile(p: number): number {
    const total = this.total;
    if (total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    for (let index = 0; index < this.counts.length; index += 1) {
      seen += this.counts[index] as number;
      if (seen >= rank) return index;
    }
    return this.counts.length - 1;
  }

  /** Counts without trailing zeros (compact for IPC). */
  compact(): number[] {
    let end = this.counts.length;
    while (end > 0 && this.counts[end - 1] === 0) end -= 1;
    return this.counts.slice(0, end);
  }
}

/** Formats a number for the table: 3 significant digits, thousands separators for big values. */
export function formatNumber(value: number | undefined): string {
  if (value === undefined) return '';
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return '0';
  return value.toPrecision(2);
}

/** The status column: `ok`, `MISSED`, or empty without a target. */
export function statusOf(figure: Figure): string {
  if (figure.met === undefined) return '';
  return figure.met ? 'ok' : 'MISSED';
}

/**
 * Renders figures as a fixed-width text table grouped by benchmark.
 *
 * @returns the table, lines joined with `\n`
 */
export function renderTable(figures: readonly Figure[]): string {
  const header = ['bench', 'figure', 'unit', 'p50', 'p99', 'rate/value', 'n', 'ratio', 'vs baseline', 'target', 'status'];
  const rows = figures.map((figure) => [
    figure.bench,
    figure.name,
    figure.unit,
    formatNumber(figure.p50),
    formatNumber(figure.p99),
    formatNumber(figure.rate ?? figure.value),
    figure.n === undefined ? '' : String(figure.n),
    figure.ratio === undefined ? '' : `${formatNumber(figure.ratio)}×`,
    figure.baseline ?? '',
    figure.target ?? '',
    statusOf(figure),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const numeric = new Set([3, 4, 5, 6, 7]);
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number)))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((width) => '-'.repeat(width)).join('  ')];
  let previous: string | undefined;
  for (const [index, row] of rows.entries()) {
    const bench = figures[index]?.bench;
    if (previous !== undefined && bench !== previous) out.push('');
    previous = bench;
    out.push(line(row));
  }
  const notes = figures.filter((figure) => figure.note !== undefined);
  if (notes.length > 0) {
    out.push('', 'Notes:');
    for (const figure of notes) out.push(`  ${figure.bench} / ${figure.name}: ${figure.note as string}`);
  }
  return out.join('\n');
}
