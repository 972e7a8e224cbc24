/**
 * Reads V8 `.cpuprofile` files (from `node --cpu-prof`) and lists the functions with the most
 * self time. Also a CLI: `npx tsx bench/harness/cpu-profile.ts <file-or-dir> [top]`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './ipc.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** One row of the self-time list. */
export interface HotFunction {
  functionName: string;
  /** `path:line` relative to the repository (node_modules paths shortened). */
  location: string;
  selfMs: number;
  percent: number;
}

/** Self time of one profile, by function. */
export interface ProfileSummary {
  file: string;
  totalMs: number;
  top: HotFunction[];
}

function shortLocation(url: string, line: number): string {
  if (url === '') return '';
  let path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(REPO_ROOT)) path = relative(REPO_ROOT, path);
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) path = path.slice(modules + 'node_modules/'.length);
  return `${path}:${line + 1}`;
}

/**
 * Self time per function of one profile (samples × their time deltas), biggest first.
 *
 * @param top rows returned
 */
export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let index = 0; index < samples.length; index += 1) {
    // timeDeltas[i] is the time before sample i; attribute the next delta to sample i.
    const delta = deltas[index + 1] ?? 0;
    const id = samples[index] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, delta));
  }
  const byFunction = new Map<string, HotFunction>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined) continue;
    totalUs += us;
    const name = node.callFrame.functionName === '' ? '(anonymous)' : node.callFrame.functionName;
    const location = shortLocation(node.callFrame.url, node.callFrame.lineNumber);
    const key = `${name}\u0000${location}`;
    const row = byFunction.get(key) ?? { functionName: name, location, selfMs: 0, percent: 0 };
    row.selfMs += us / 1000;
    byFunction.set(key, row);
  }
  const rows = [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  for (const row of rows) row.percent = totalUs === 0 ? 0 : (row.selfMs * 1000 * 100) / totalUs;
  return { file: basename(file), totalMs: totalUs / 1000, top: rows };
}

/**
 * Summaries of the main-thread profiles under a directory: `*.cpuprofile` files in it and in
 * its subdirectories (one per server child); worker-thread profiles (tid ≠ 0 in V8's default
 * file name `CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile`) are skipped.
 */
export function summarizeProfiles(directory: string, top = 15): ProfileSummary[] {
  const summaries: ProfileSummary[] = [];
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) {
      for (const summary of summarizeProfiles(path, top)) summaries.push({ ...summary, file: `${name}/${summary.file}` });
    } else if (name.endsWith('.cpuprofile') && isMainThread(name)) {
      summaries.push(summarizeProfile(path, top));
    }
  }
  return summaries;
}

function isMainThread(name: string): boolean {
  const parts = name.split('.');
  return parts.length < 7 || parts[4] === '0';
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = process.argv[2];
  const top = Number(process.argv[3] ?? 25);
  if (target === undefined) {
    process.stderr.write('usage: tsx bench/harness/cpu-profile.ts <file.cpuprofile | directory> [top]\n');
    process.exit(2);
  }
  const summaries = statSync(target).isDirectory() ? summarizeProfiles(target, top) : [summarizeProfile(target, top)];
  for (const summary of summaries) {
    process.stdout.write(`\n${summary.file} (${(summary.totalMs / 1000).toFixed(2)} s sampled)\n`);
    for (const row of summary.top) {
      process.stdout.write(`  ${row.selfMs.toFixed(1).padStart(8)} ms  ${row.percent.toFixed(1).padStart(5)} %  ${row.functionName}  ${row.location}\n`);
    }
  }
}
