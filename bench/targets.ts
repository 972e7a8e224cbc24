/**
 * The performance targets and the table `npm run bench` prints for them: for each target, the
 * figure, its baseline from the same run, the ratio, the bound and met/MISSED. Benchmarks
 * never fail on a missed target.
 *
 * Adding a target is one line in the bench file that measures it:
 *
 * ```ts
 * figures.push(meets({ bench, name, unit, rate, baseline: 'raw INSERT', ratio }, 'viewer revision write rate', { baselineValue: rawRate }));
 * ```
 *
 * The key names an entry of {@link PERFORMANCE_TARGETS} (what is held to which bound); add the
 * entry there when the target is new. A key that is not in the catalogue throws, so a typo
 * cannot silently drop a target from the table.
 */
import { formatNumber, type Figure } from './harness/stats.js';

/** The quantity of a figure a target bounds. */
export type Measure = 'ratio' | 'p50' | 'p99' | 'rate' | 'value';

/** One performance target. */
export interface TargetSpec {
  /** The group the target belongs to (`mutation cost`, `run lists`, …, `pi-workflows file`); tables list groups in catalogue order. */
  item: string;
  /** The benchmark expected to measure it (`--only` name); the table says when it did not. */
  bench: string;
  /** Which quantity of the figure is bounded. */
  on: Measure;
  /** Upper bound (inclusive). */
  atMost?: number;
  /** Lower bound (inclusive). */
  atLeast?: number;
  /** What the ratio is taken against, for the table (ratio targets). */
  against?: string;
  /** Unit of the bound in the catalogue (`--targets`) for a `value` target; latencies are ms. */
  unit?: string;
}

/**
 * Every performance target, by key. Ratios are "this figure ÷ its baseline of the same run";
 * latencies in ms, CPU in ms per second or µs as the key says. The `pi-workflows file` group
 * holds each operation on a pi-workflows state file to the same operation on our own file of the
 * same runs, measured in the same run with the two files' requests interleaved.
 */
export const PERFORMANCE_TARGETS = {
  'reserve+claim HTTP c=8': { item: 'mutation cost', bench: 'mutation-overhead', on: 'ratio', atLeast: 0.5, against: 'fsync-bound commit rate' },
  'GraphQL overhead c=1': { item: 'mutation cost', bench: 'mutation-overhead', on: 'value', atMost: 25, unit: '%' },
  'GraphQL overhead c=8': { item: 'mutation cost', bench: 'mutation-overhead', on: 'value', atMost: 25, unit: '%' },
  'in-process store call': { item: 'mutation cost', bench: 'mutation-overhead', on: 'ratio', atMost: 2, against: 'one raw fsync’d commit' },
  'flat run-list page': { item: 'run lists', bench: 'run-lists', on: 'ratio', atMost: 3, against: '{ __typename }' },
  'nested run-list page': { item: 'run lists', bench: 'run-lists', on: 'ratio', atMost: 1.5, against: 'flat page' },
  'lineage page': { item: 'run lists', bench: 'run-lists', on: 'ratio', atMost: 1.5, against: 'flat page' },
  'fan-out CPU per subscriber and revision µs': { item: 'fan-out', bench: 'fanout', on: 'value', atMost: 20, unit: 'µs' },
  'fan-out 1,000 subscribers p99': { item: 'fan-out', bench: 'fanout', on: 'p99', atMost: 20 },
  'fan-out 20,000 subscribers p99': { item: 'fan-out', bench: 'fanout', on: 'p99', atMost: 250 },
  'fan-out 50,000 subscribers held': { item: 'fan-out', bench: 'fanout', on: 'value', atLeast: 50_000, unit: 'subscribers' },
  'event-loop delay p99 while locked': { item: 'lock wait', bench: 'lock-wait', on: 'p99', atMost: 20 },
  'two processes racing claims': { item: 'lock wait', bench: 'lock-wait', on: 'ratio', atLeast: 0.7, against: 'one process, same clients' },
  'racing claims p99': { item: 'lock wait', bench: 'lock-wait', on: 'p99', atMost: 50 },
  'cross-process pickup p99': { item: 'cross-process', bench: 'cross-process', on: 'p99', atMost: 30 },
  'idle CPU while subscribers wait ms/s': { item: 'cross-process', bench: 'cross-process', on: 'value', atMost: 5, unit: 'ms/s' },
  'viewer revision write rate': { item: 'write rate', bench: 'write-rate', on: 'ratio', atLeast: 0.8, against: 'raw single-row INSERT transactions' },
  'flat run-list page @1M': { item: 'scale', bench: 'scale', on: 'ratio', atMost: 1.5, against: '@100k' },
  'lineage page @1M': { item: 'scale', bench: 'scale', on: 'ratio', atMost: 1.5, against: '@100k' },
  'change feed @1M': { item: 'scale', bench: 'scale', on: 'ratio', atMost: 1.5, against: '@100k' },
  'pi-workflows file reserve+claim': { item: 'pi-workflows file', bench: 'pi-workflows-writes', on: 'ratio', atMost: 1.2, against: 'our own file' },
  'pi-workflows file viewer revision': { item: 'pi-workflows file', bench: 'pi-workflows-writes', on: 'ratio', atMost: 1.2, against: 'our own file' },
  'pi-workflows file run-list page': { item: 'pi-workflows file', bench: 'pi-workflows-file', on: 'ratio', atMost: 1.2, against: 'our own file' },
  'pi-workflows file lineage page': { item: 'pi-workflows file', bench: 'pi-workflows-file', on: 'ratio', atMost: 1.2, against: 'our own file' },
  'run view open 10,000 ÷ 100': { item: 'run view', bench: 'view', on: 'ratio', atMost: 1.2, against: 'the same view with 100 of each' },
  'run view change p99': { item: 'run view', bench: 'view', on: 'p99', atMost: 50 },
  'run view CPU per subscriber and revision µs': { item: 'run view', bench: 'view', on: 'value', atMost: 20, unit: 'µs' },
} as const satisfies Record<string, TargetSpec>;

/** Position of a target group in catalogue order (its first target in {@link PERFORMANCE_TARGETS}). */
function groupIndex(item: string): number {
  return Object.values(PERFORMANCE_TARGETS as Record<string, TargetSpec>).findIndex((spec) => spec.item === item);
}

/** Key of a target in {@link PERFORMANCE_TARGETS}. */
export type TargetKey = keyof typeof PERFORMANCE_TARGETS;

/** A figure held to a target: {@link Figure} plus what the target table needs. */
export interface TargetedFigure extends Figure {
  /** Key in {@link PERFORMANCE_TARGETS}. */
  targetKey: TargetKey;
  /** The bounded quantity's value. */
  measured: number;
  /** The baseline's value in the same run (the denominator of the ratio), when there is one. */
  baselineValue?: number;
}

/** Extra facts for {@link meets}. */
export interface MeetsOptions {
  /** The baseline's value (same unit as the figure), printed next to the ratio. */
  baselineValue?: number;
  /**
   * A further condition the figure must hold to count as met (e.g. every revision delivered);
   * false makes the target MISSED whatever the bound says. `why` is added to the note.
   */
  also?: { ok: boolean; why: string };
}

function boundText(spec: TargetSpec, unit: string): string {
  const suffix = spec.on === 'ratio' ? '×' : unit === '' ? '' : ` ${unit}`;
  const parts: string[] = [];
  if (spec.atLeast !== undefined) parts.push(`≥ ${formatNumber(spec.atLeast)}${suffix}`);
  if (spec.atMost !== undefined) parts.push(`≤ ${formatNumber(spec.atMost)}${suffix}`);
  const what = spec.on === 'ratio' ? `ratio` : spec.on;
  return `${what} ${parts.join(' and ')}`;
}

/**
 * Holds `figure` to the target `key`: sets `target` (text), `met`, `measured` and the baseline
 * value. The bounded quantity (`on`) must be present on the figure.
 *
 * @returns the same figure, extended
 * @throws Error for an unknown key or a figure without the bounded quantity
 */
export function meets(figure: Figure, key: TargetKey, options: MeetsOptions = {}): TargetedFigure {
  const spec: TargetSpec | undefined = (PERFORMANCE_TARGETS as Record<string, TargetSpec>)[key];
  if (spec === undefined) throw new Error(`unknown target ${String(key)}; add it to PERFORMANCE_TARGETS in bench/targets.ts`);
  const measured = figure[spec.on];
  if (measured === undefined) throw new Error(`figure ${figure.name} has no ${spec.on} for target ${key}`);
  let met = Number.isFinite(measured) && (spec.atMost === undefined || measured <= spec.atMost) && (spec.atLeast === undefined || measured >= spec.atLeast);
  let note = figure.note;
  if (options.also !== undefined && !options.also.ok) {
    met = false;
    note = `${note === undefined ? '' : `${note}; `}MISSED because ${options.also.why}`;
  }
  return {
    ...figure,
    ...(note === undefined ? {} : { note }),
    targetKey: key,
    measured,
    ...(options.baselineValue === undefined ? {} : { baselineValue: options.baselineValue }),
    target: boundText(spec, figure.unit),
    met,
  };
}

/** One row of the target table (also written to bench/results.json). */
export interface TargetRow {
  key: string;
  item: string;
  /** `bench / figure name`, or why there is none. */
  figure: string;
  measured?: number;
  unit: string;
  baseline?: string;
  baselineValue?: number;
  ratio?: number;
  target: string;
  /** `met`, `MISSED`, `not run` (its benchmark was not selected) or `no figure` (selected, nothing reported). */
  status: 'met' | 'MISSED' | 'not run' | 'no figure';
}

/**
 * The target table: one row per figure held to a target, then one row per catalogued target
 * no figure reported (`not run` when its benchmark was not selected).
 *
 * @param ran the benchmarks that ran
 */
export function targetRows(figures: readonly Figure[], ran: readonly string[]): TargetRow[] {
  const rows: TargetRow[] = [];
  const seen = new Set<string>();
  for (const figure of figures as ReadonlyArray<Partial<TargetedFigure> & Figure>) {
    if (figure.targetKey === undefined) continue;
    const spec = PERFORMANCE_TARGETS[figure.targetKey] as TargetSpec;
    seen.add(figure.targetKey);
    rows.push({
      key: figure.targetKey,
      item: spec.item,
      figure: `${figure.bench} / ${figure.name}`,
      ...(figure.measured === undefined ? {} : { measured: figure.measured }),
      unit: spec.on === 'ratio' ? '×' : figure.unit,
      ...(figure.baseline === undefined ? {} : { baseline: figure.baseline }),
      ...(figure.baselineValue === undefined ? {} : { baselineValue: figure.baselineValue }),
      ...(figure.ratio === undefined ? {} : { ratio: figure.ratio }),
      target: figure.target ?? '',
      status: figure.met === true ? 'met' : 'MISSED',
    });
  }
  for (const [key, spec] of Object.entries(PERFORMANCE_TARGETS) as Array<[string, TargetSpec]>) {
    if (seen.has(key)) continue;
    const selected = ran.includes(spec.bench);
    rows.push({
      key,
      item: spec.item,
      figure: selected ? `${spec.bench}: no figure reported` : `${spec.bench} (not selected)`,
      unit: '',
      target: boundText(spec, ''),
      status: selected ? 'no figure' : 'not run',
    });
  }
  return rows.sort((a, b) => groupIndex(a.item) - groupIndex(b.item));
}

/** Renders {@link targetRows} as a fixed-width text table. */
export function renderTargetTable(rows: readonly TargetRow[]): string {
  const header = ['target', 'figure', 'measured', 'baseline', 'ratio', 'bound', 'status'];
  const cells = rows.map((row) => [
    row.key,
    row.figure,
    row.measured === undefined ? '' : `${formatNumber(row.measured)}${row.unit === '×' ? '×' : row.unit === '' ? '' : ` ${row.unit}`}`,
    row.baseline === undefined ? '' : `${row.baseline}${row.baselineValue === undefined ? '' : ` = ${formatNumber(row.baselineValue)}`}`,
    row.ratio === undefined ? '' : `${formatNumber(row.ratio)}×`,
    row.target,
    row.status,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => (cell[column] as string).length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, column) => (column === 2 || column === 4 ? value.padStart(widths[column] as number) : value.padEnd(widths[column] as number)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line)].join('\n');
}

/**
 * The catalogue of {@link PERFORMANCE_TARGETS} as a fixed-width text table (`npm run bench --
 * --targets`): group, target, the benchmark that measures it, the bound and what a ratio is
 * taken against. Latency bounds (p50, p99) are in ms; a value bound in its `unit`.
 */
export function renderTargetCatalogue(): string {
  const header = ['group', 'target', 'benchmark', 'bound', 'ratio against'];
  const cells = (Object.entries(PERFORMANCE_TARGETS) as Array<[string, TargetSpec]>)
    .sort(([, a], [, b]) => groupIndex(a.item) - groupIndex(b.item))
    .map(([key, spec]) => [spec.item, key, spec.bench, boundText(spec, spec.on === 'p50' || spec.on === 'p99' ? 'ms' : (spec.unit ?? '')), spec.against ?? '']);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => (cell[column] as string).length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, column) => value.padEnd(widths[column] as number))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line)].join('\n');
}
