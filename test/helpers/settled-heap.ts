/**
 * The heap of a child process started with `--expose-gc`, for memory checks that must not flake
 * under load: measured in a process of its own (nothing else allocates there), after forced full
 * collections between event-loop turns (so pending finalizers and closed sockets are gone), the
 * lowest of several readings. Never used in a vitest worker: there the runner's own allocations
 * and a loaded machine's timing decide what a collection finds.
 */

/**
 * The settled `heapUsed`, in bytes: the lowest of `rounds` readings, each after a turn of the
 * event loop and a forced `gc()`.
 *
 * @throws Error when the process was not started with `--expose-gc`
 */
export async function settledHeap(rounds = 8): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('settledHeap: run the process with --expose-gc');
  let lowest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    lowest = Math.min(lowest, process.memoryUsage().heapUsed);
  }
  return lowest;
}
