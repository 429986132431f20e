import { certifyBank } from "./src/certify/certify-bank.js";
import { defaultBankContent } from "./src/generate/default-bank.js";
const which = process.argv[2] ?? "solo";
const content = defaultBankContent();
const t0 = Date.now();
const report = await certifyBank(content, {
  gates: which === "all" ? undefined : (["requirement_mutants", "legitimate_variants"] as const),
  tasks: (t) => which === "all" || t.kind === which,
  workers: 2,
});
for (const [g, r] of Object.entries(report.gates)) {
  const rr = r as any;
  console.log(g, "checked", rr?.checked, "failures", rr?.failures?.length, JSON.stringify(rr?.mutants ?? ""));
  for (const f of (rr?.failures ?? []).slice(0, 8)) console.log("   ", f.task_id, f.check, f.message.slice(0, 300));
}
console.log("ok", report.ok, "s", (Date.now() - t0) / 1000);
