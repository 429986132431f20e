import { serializeBank } from "../src/bank/bank.js";
import { generateBank } from "../src/generate/generate-bank.js";
import { type Benchmark, median } from "./figure.js";

/**
 * Issue 4: generating the default bank (13 worlds, 467 tasks) and serialising it to canonical
 * JSON with its manifest, ≤ 5 s on this 2-core machine. Median of three runs.
 */
const benchmark: Benchmark = {
  name: "generate",
  async run() {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const result = generateBank({ seed: `bench-${i}` });
      if (!result.success) throw new Error(result.error.message);
      serializeBank(result.data);
      times.push((performance.now() - started) / 1000);
    }
    const value = median(times);
    return [
      {
        name: "generate default bank + serialise (median)",
        value,
        unit: "s",
        target: "<= 5",
        ok: value <= 5,
        issue: 4,
      },
    ];
  },
};

export default benchmark;
