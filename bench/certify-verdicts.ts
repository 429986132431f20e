import { writeFileSync } from "node:fs";
import { bankFromContent } from "../src/bank/bank.js";
import { assembleReport, certifyBank, certifyTask, type TaskFindings } from "../src/certify/certify-bank.js";
import { sharedTrials } from "../src/certify/trial-tree.js";
import { defaultBankContent } from "../src/generate/default-bank.js";

/**
 * `npx tsx bench/certify-verdicts.ts OUT.json [--workers N]`: every task's certification findings
 * on the default bank (each gate's failures, notes, the exploits that attacked and passed it, its
 * mutant counts; no timings) and the whole report, as canonical JSON. A speed-up of certification
 * must leave this file byte-identical: diff the file written before the change with the one after.
 * Findings come from this thread, task by task (the path without workers); with `--workers N` the
 * report is also computed by `certifyBank` on N threads and must equal the one-thread report.
 */
const [out, flag, n] = process.argv.slice(2);
if (!out) throw new Error("usage: certify-verdicts OUT.json [--workers N]");
const options = { attempts: 10, minPasses: 3 };
const bank = bankFromContent(defaultBankContent());
const runner = sharedTrials(bank);
const findings: TaskFindings[] = [];
for (const task of bank.tasks) findings.push(await certifyTask(bank, task, options, runner));
const report = assembleReport(bank, bank.tasks, findings, options);
const perTask = findings.map(({ time: _, ...f }) => f);
if (flag === "--workers") {
  const parallel = await certifyBank(bank, { ...options, workers: Number(n) });
  if (JSON.stringify(parallel) !== JSON.stringify(report))
    throw new Error(`the report on ${n} threads differs from the report on one thread`);
  process.stderr.write(`the report on ${n} threads equals the one-thread report\n`);
}
writeFileSync(out, `${JSON.stringify({ report, tasks: perTask }, null, 1)}\n`);
process.stderr.write(`wrote ${out}: ${perTask.length} tasks, ok=${report.ok}\n`);
