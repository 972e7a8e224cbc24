/**
 * The abort signals of the change feed's waits: one `abort` listener per signal for all the
 * waits made with it (a follow stream waits on the feed once per revision with the same signal;
 * an `AbortSignal` listener added and removed per wait showed in the fan-out profile).
 */

/** Something to do when a wait's signal aborts. */
export interface AbortHook {
  aborted(): void;
}

/**
 * The hooks of every signal a feed's waits were made with. One instance per feed, shared by its
 * revision waits, change waits and lease waits, so a signal's hooks run in the order the waits
 * were made.
 */
export class AbortHooks {
  /** Per signal, what to do when it aborts. */
  private readonly hooks = new WeakMap<AbortSignal, Set<AbortHook>>();

  /**
   * Runs `hook.aborted()` when `signal` aborts (once; the signal's first hook adds its one
   * listener). The hook stays until {@link remove}.
   */
  add(signal: AbortSignal, hook: AbortHook): void {
    let hooks = this.hooks.get(signal);
    if (hooks === undefined) {
      const created = new Set<AbortHook>();
      hooks = created;
      this.hooks.set(signal, created);
      signal.addEventListener(
        'abort',
        () => {
          for (const each of created) each.aborted();
          created.clear();
        },
        { once: true },
      );
    }
    hooks.add(hook);
  }

  /** Forgets `hook` (its wait ended); the signal's listener stays, with nothing to do. */
  remove(signal: AbortSignal, hook: AbortHook): void {
    this.hooks.get(signal)?.delete(hook);
  }
}
