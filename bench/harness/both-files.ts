/**
 * The two files of the pi-workflows file benchmarks (bench/pi-workflows-file.ts reads them,
 * bench/pi-workflows-writes.ts writes them): the same runs built through the store in our
 * format and copied into a pi-workflows state file, and one server child on each.
 */
import { join } from 'node:path';
import { WorkflowStore } from '../../src/store/index.js';
import { copyIntoPiWorkflowsFile } from '../../fixtures/pi-workflows-file.js';
import type { BenchContext } from './bench-context.js';
import { buildChain, spreadRestarts, type Chain } from './chains.js';
import type { Figure } from './stats.js';
import { GraphQLHttpClient } from './http-load.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { steppingClock, tempDir } from './store-inputs.js';

const SHORT_CHAIN = 5;
/** Short chains reserved per transaction while the database is built. */
const BATCH_CHAINS = 200;

/** Builds `total` runs in our format; returns the deep chain. */
function buildOurFile(context: BenchContext, bench: string, dbPath: string, projectPath: string, total: number, deepLength: number): Chain {
  const store = WorkflowStore.open({ path: dbPath, projectPath, clock: steppingClock(Date.now() - 30 * 86_400_000) });
  try {
    const deep = store.transaction(() => buildChain(store, 'deep', deepLength, spreadRestarts(deepLength)));
    const chains = Math.ceil((total - deepLength) / SHORT_CHAIN);
    for (let first = 0; first < chains; first += BATCH_CHAINS) {
      store.transaction(() => {
        for (let index = first; index < Math.min(chains, first + BATCH_CHAINS); index += 1) {
          buildChain(store, `short${index}`, SHORT_CHAIN, index % 10 === 0 ? [2] : []);
        }
      });
      context.progress(`${bench}: … ${deepLength + Math.min(chains, first + BATCH_CHAINS) * SHORT_CHAIN} runs`);
    }
    return deep;
  } finally {
    store.close();
  }
}

/** The two files of the same runs, built by {@link buildBothFiles}. */
export interface BothFiles {
  /** The temporary directory holding both (also the project path); `remove` deletes it. */
  temp: { dir: string; remove: () => void };
  ourPath: string;
  piPath: string;
  /** The deep chain. */
  deep: Chain;
  /** Run count. */
  total: number;
  /** The setup figures (build and copy times). */
  figures: Figure[];
}

/**
 * Builds `total` runs (quick: 2,000, else 10,000; a deep chain of 1,000 / 200, the rest in
 * chains of five) in our format, then copies them into a pi-workflows state file beside it.
 * The caller removes `temp`.
 *
 * @param bench the benchmark name for progress lines and figures
 */
export function buildBothFiles(context: BenchContext, bench: string): BothFiles {
  const total = context.quick ? 2_000 : 10_000;
  const deepLength = context.quick ? 200 : 1_000;
  const temp = tempDir('bench-pi-file-');
  try {
    const ourPath = join(temp.dir, 'ours.db');
    const piPath = join(temp.dir, 'state.sqlite');
    context.progress(`${bench}: building ${total} runs in our format (a chain of ${deepLength}, the rest in chains of ${SHORT_CHAIN})`);
    const buildStarted = performance.now();
    const deep = buildOurFile(context, bench, ourPath, temp.dir, total, deepLength);
    const buildMs = performance.now() - buildStarted;
    const copyStarted = performance.now();
    copyIntoPiWorkflowsFile(ourPath, piPath);
    const copyMs = performance.now() - copyStarted;
    context.progress(`${bench}: built in ${(buildMs / 1000).toFixed(1)} s, copied into a pi-workflows state file in ${(copyMs / 1000).toFixed(1)} s`);
    const figures: Figure[] = [
      { bench, name: `setup: ${total} runs, our format`, unit: 's', value: buildMs / 1000, n: total },
      { bench, name: 'setup: copy into a pi-workflows file', unit: 's', value: copyMs / 1000, n: total },
    ];
    return { temp, ourPath, piPath, deep, total, figures };
  } catch (error) {
    temp.remove();
    throw error;
  }
}

/** A server child and a keep-alive client (one connection) per file: our format first. */
export interface BothServers {
  servers: [ServerProcess, ServerProcess];
  ours: GraphQLHttpClient;
  pi: GraphQLHttpClient;
  /** Closes the clients and stops both children. */
  stop: () => Promise<void>;
}

/** Starts one server child on each file (read-write), each with its CPU profile when asked for. */
export async function startBothServers(context: BenchContext, bench: string, files: BothFiles): Promise<BothServers> {
  const servers: ServerProcess[] = [];
  const clients: GraphQLHttpClient[] = [];
  const stop = async (): Promise<void> => {
    for (const client of clients) client.close();
    for (const server of servers) await server.child.stop();
  };
  try {
    for (const [label, dbPath] of [
      ['ours', files.ourPath],
      ['pi', files.piPath],
    ] as const) {
      const server = await startServerProcess({
        dbPath,
        projectPath: files.temp.dir,
        ...(context.profileDir === undefined ? {} : { profileDir: context.profileDir, profileName: `${bench}-${label}` }),
      });
      servers.push(server);
      clients.push(new GraphQLHttpClient(server.url, 1));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers: servers as [ServerProcess, ServerProcess], ours: clients[0] as GraphQLHttpClient, pi: clients[1] as GraphQLHttpClient, stop };
}
