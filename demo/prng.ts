/**
 * mulberry32: a tiny seeded PRNG (32-bit state), enough to make the demo reproducible.
 * Not for anything that needs real randomness.
 */
export interface Prng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** A key chosen by its weight (weights > 0). */
  weighted<K extends string>(weights: Readonly<Partial<Record<K, number>>>): K;
  /** `length` lowercase hex characters. */
  hex(length: number): string;
}

/** A seeded PRNG; the same seed gives the same sequence. */
export function mulberry32(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty array');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    weighted: <K extends string>(weights: Readonly<Partial<Record<K, number>>>): K => {
      const entries = Object.entries(weights) as Array<[K, number]>;
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = next() * total;
      for (const [key, weight] of entries) {
        roll -= weight;
        if (roll < 0) return key;
      }
      return (entries.at(-1) as [K, number])[0];
    },
    hex: (length) => {
      let out = '';
      while (out.length < length)
        out += Math.floor(next() * 0x1_0000_0000)
          .toString(16)
          .padStart(8, '0');
      return out.slice(0, length);
    },
  };
}
