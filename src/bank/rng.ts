import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import { sha256Hex } from "./canonical-json.js";

/**
 * The one seeded PRNG of the project. Everything that feeds a bank is drawn from an `Rng` that
 * was passed in explicitly, never from `Math.random` or the clock.
 *
 * @example const rng = Rng.fromSeed("apiflow-1"); rng.int(1, 6);
 */
export class Rng {
  private constructor(private readonly gen: RandomGenerator) {}

  /** A generator from any string or number seed (hashed, so similar seeds diverge at once). */
  static fromSeed(seed: string | number): Rng {
    const hex = sha256Hex(`apiflow-rng:${seed}`);
    return new Rng(xoroshiro128plus(Number.parseInt(hex.slice(0, 8), 16) | 0));
  }

  /** An independent stream derived from this seed and a label, leaving this one untouched. */
  static derive(seed: string | number, label: string): Rng {
    return Rng.fromSeed(`${seed}/${label}`);
  }

  /** Integer in [from, to], both included. */
  int(from: number, to: number): number {
    return uniformInt(this.gen, from, to);
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: empty array");
    return items[this.int(0, items.length - 1)] as T;
  }

  /** A new array with the items in a seeded order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.int(0, 999_999) < Math.round(p * 1_000_000);
  }
}
