import { z } from "zod";
import { isScored, type TrialRecord } from "../run/trial-record.js";
import { clusterRobustRatio, REPORT_LEVEL } from "./cluster-robust.js";
import { naturalCompare } from "./slice-stats.js";

export const NullModelPointSchema = z.object({
  /** Pass rate of the scored chain trials of this length. */
  observed: z.number().nullable(),
  /** Mean over those trials of the product of the agent's solo pass rates on subtasks 1..L of the world. */
  predicted: z.number().nullable(),
  observed_clean: z.number().nullable(),
  predicted_clean: z.number().nullable(),
  /** Scored chain trials of this length. */
  n: z.number().int(),
  /** Of those, the ones with a solo pass rate for every subtask 1..L (the predicted mean's denominator). */
  n_predicted: z.number().int(),
  n_clean: z.number().int(),
  n_predicted_clean: z.number().int(),
  /**
   * Observed − predicted over the trials that have a prediction (mean of pass − product), with its
   * 90% cluster-robust interval over worlds. The prediction is estimated from the same world's solo
   * trials; clustering by world carries that noise into the interval too.
   */
  gap: z.number().nullable(),
  gap_ci90: z.tuple([z.number(), z.number()]).nullable(),
  gap_clean: z.number().nullable(),
  gap_clean_ci90: z.tuple([z.number(), z.number()]).nullable(),
  /** Worlds with a chain of this length (the intervals' clusters). */
  worlds: z.number().int(),
});
export type NullModelPoint = z.infer<typeof NullModelPointSchema>;

/**
 * The independent-error null by chain length: if subtask failures were independent, a chain of
 * length L by agent m in world w would pass with the product of m's solo pass rates on subtasks
 * 1..L of w. Pooled over the chain trials of each length, inclusive and clean (`isClean`).
 *
 * @example independentErrorNull(records, (r) => !flagged.has(r.task_id))["12"].predicted
 */
export function independentErrorNull(
  records: readonly TrialRecord[],
  isClean: (r: TrialRecord) => boolean,
): Record<string, NullModelPoint> {
  const solo = new Map<string, { n: number; passes: number }>();
  const soloKey = (r: TrialRecord, position: number) =>
    `${r.bank_hash}\u0000${r.agent}\u0000${r.world}\u0000${position}`;
  for (const r of records) {
    if (r.kind !== "solo" || !isScored(r)) continue;
    const key = soloKey(r, r.position!);
    const s = solo.get(key) ?? { n: 0, passes: 0 };
    s.n++;
    if (r.passed) s.passes++;
    solo.set(key, s);
  }
  type Gap = Map<string, { num: number; den: number }>;
  const acc = new Map<
    number,
    {
      n: number;
      passes: number;
      np: number;
      sp: number;
      nc: number;
      pc: number;
      npc: number;
      spc: number;
      worlds: Set<string>;
      gap: Gap;
      gapClean: Gap;
    }
  >();
  const addGap = (g: Gap, world: string, d: number) => {
    const c = g.get(world) ?? { num: 0, den: 0 };
    c.num += d;
    c.den++;
    g.set(world, c);
  };
  for (const r of records) {
    if (r.kind !== "chain" || !isScored(r)) continue;
    const L = r.length!;
    const a = acc.get(L) ?? {
      n: 0,
      passes: 0,
      np: 0,
      sp: 0,
      nc: 0,
      pc: 0,
      npc: 0,
      spc: 0,
      worlds: new Set<string>(),
      gap: new Map(),
      gapClean: new Map(),
    };
    acc.set(L, a);
    a.worlds.add(r.world);
    const clean = isClean(r);
    const pass = r.passed ? 1 : 0;
    a.n++;
    a.passes += pass;
    if (clean) {
      a.nc++;
      a.pc += pass;
    }
    let product: number | null = 1;
    for (let p = 1; p <= L && product !== null; p++) {
      const s = solo.get(soloKey(r, p));
      product = s ? product * (s.passes / s.n) : null;
    }
    if (product === null) continue;
    a.np++;
    a.sp += product;
    addGap(a.gap, r.world, pass - product);
    if (clean) {
      a.npc++;
      a.spc += product;
      addGap(a.gapClean, r.world, pass - product);
    }
  }
  const ratio = (x: number, n: number) => (n ? x / n : null);
  return Object.fromEntries(
    [...acc.keys()]
      .map(String)
      .sort(naturalCompare)
      .map((L) => {
        const a = acc.get(Number(L))!;
        const diff = { level: REPORT_LEVEL, proportion: false, bounds: [-1, 1] as [number, number] };
        const gap = clusterRobustRatio([...a.gap.values()], diff);
        const gapClean = clusterRobustRatio([...a.gapClean.values()], diff);
        return [
          L,
          {
            observed: ratio(a.passes, a.n),
            predicted: ratio(a.sp, a.np),
            observed_clean: ratio(a.pc, a.nc),
            predicted_clean: ratio(a.spc, a.npc),
            n: a.n,
            n_predicted: a.np,
            n_clean: a.nc,
            n_predicted_clean: a.npc,
            gap: gap.estimate,
            gap_ci90: gap.ci,
            gap_clean: gapClean.estimate,
            gap_clean_ci90: gapClean.ci,
            worlds: a.worlds.size,
          },
        ];
      }),
  );
}
