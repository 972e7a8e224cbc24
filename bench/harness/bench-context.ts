/** What every benchmark module receives from bench/run.ts. */
export interface BenchContext {
  /** `--quick`: smaller sizes and shorter durations (whole run under a minute). */
  quick: boolean;
  /** Prints a progress line (what is being measured now). */
  progress: (text: string) => void;
  /** When set, server children run under `--cpu-prof` and write their profiles here. */
  profileDir?: string;
}

/** Sleeps `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
