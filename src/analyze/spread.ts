/**
 * Spread of a slice's pass rate across models: max − min on the probability scale, and on the
 * log-odds scale with the Haldane–Anscombe correction ((passes + ½) / (n + 1)), so 0% and 100%
 * stay finite. Models with no scored trial in the slice are left out; fewer than two → null.
 *
 * @example spread([{ passes: 9, n: 10 }, { passes: 1, n: 10 }]) // { abs: 0.8, log_odds: 4.0 }
 */
export function spread(rates: ReadonlyArray<{ passes: number; n: number }>): {
  abs: number | null;
  log_odds: number | null;
} {
  const live = rates.filter((r) => r.n > 0);
  if (live.length < 2) return { abs: null, log_odds: null };
  const p = live.map((r) => r.passes / r.n);
  const lo = live.map((r) => {
    const q = (r.passes + 0.5) / (r.n + 1);
    return Math.log(q / (1 - q));
  });
  return { abs: Math.max(...p) - Math.min(...p), log_odds: Math.max(...lo) - Math.min(...lo) };
}
