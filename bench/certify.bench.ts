import { certifyBank } from "../src/certify/certify-bank.js";
import { GATE_NAMES } from "../src/certify/certify-schema.js";
import { defaultBankContent } from "../src/generate/default-bank.js";
import type { BenchFigure, Benchmark } from "./figure.js";

/**
 * Issue 8: full certification of the default bank — grader triad, oracle ×10, discoverability,
 * leak, chain replays, exploit audit — ≤ 30 s on this 2-core machine. One run (it is long); each
 * gate's share is printed too, and how many tasks failed it (a failing gate still costs its time).
 */
const benchmark: Benchmark = {
  name: "certify",
  async run() {
    const content = defaultBankContent();
    const figures: BenchFigure[] = [];
    let last = performance.now();
    const started = last;
    const report = await certifyBank(content, {
      attempts: 10,
      minPasses: 3,
      onGate: (name, g) => {
        const now = performance.now();
        process.stderr.write(
          `  ${name}: ${g.passed}/${g.checked} passed in ${((now - last) / 1000).toFixed(1)} s\n`,
        );
        figures.push({
          name: `certify: ${name} (${g.failed} failed)`,
          value: (now - last) / 1000,
          unit: "s",
          target: "-",
          ok: true,
          issue: 8,
        });
        last = now;
      },
    });
    const total = (performance.now() - started) / 1000;
    return [
      {
        name: `certify default bank, all ${GATE_NAMES.length} gates (${content.tasks.length} tasks${report.ok ? "" : ", gates FAILED"})`,
        value: total,
        unit: "s",
        target: "<= 30",
        ok: total <= 30,
        issue: 8,
      },
      ...figures,
    ];
  },
};

export default benchmark;
