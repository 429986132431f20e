import { type CertifyReport, GATE_NAMES } from "./certify-schema.js";

/**
 * The certification report as a terminal table: one row per gate (tasks checked, passed, failed,
 * first failure), the audit's per-exploit counts, notes, and the verdict.
 *
 * @example io.stdout(formatCertifyReport(report));
 */
export function formatCertifyReport(report: CertifyReport): string {
  const rows = GATE_NAMES.flatMap((name) => {
    const g = report.gates[name];
    return g
      ? [
          [
            g.hard ? name : `${name} (soft)`,
            String(g.checked),
            String(g.passed),
            String(g.failed),
            g.first_failure ?? "-",
          ],
        ]
      : [];
  });
  const head = ["gate", "checked", "passed", "failed", "first failure"];
  const widths = head
    .slice(0, 4)
    .map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) =>
        i < 4 ? (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)) : c,
      )
      .join("  ");
  const out = [
    `certification of ${report.bank.name} (${report.bank.tasks} tasks, seed ${report.bank.seed}, oracle ${report.oracle})`,
    line(head),
    ...rows.map(line),
  ];
  const audit = report.gates.exploit_audit;
  if (audit?.exploits) {
    out.push("", "exploit audit (tasks passed / attacked; every count must be 0):");
    for (const [name, n] of Object.entries(audit.exploits))
      out.push(`  ${name.padEnd(24)} ${n} / ${audit.attacked?.[name] ?? 0}`);
  }
  const notes = GATE_NAMES.flatMap((name) => report.gates[name]?.notes.map((n) => `  ${name}: ${n}`) ?? []);
  if (notes.length) out.push("", "notes:", ...notes);
  if (GATE_NAMES.some((name) => report.gates[name]?.hard === false))
    out.push("", "a soft gate reports without failing the bank or dropping tasks");
  out.push("", report.ok ? "OK: every gate passed" : "FAILED: at least one gate failed");
  return `${out.join("\n")}\n`;
}
