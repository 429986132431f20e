/**
 * APIFlow-Bench as a library: the verbs the `apiflow` CLI is built from. Generate a certified bank,
 * certify a bank, run agents over it into a run directory, build reports, import the published 1.0
 * transcripts. Engine internals (world engine, workspace tools, graders, gates) are not exported
 * here; the CLI and the tests import them by path.
 *
 * @example
 * import {
 *   bankFromContent, buildReport, DEFAULT_PRICE_TABLE, defaultBankContent, goldenAgentFactory, loadRuns,
 *   reportMarkdown, runIntoDir,
 * } from "apiflow-bench";
 * const bank = bankFromContent(defaultBankContent());
 * const agents = [{ factory: goldenAgentFactory, settings: { kind: "scripted" as const } }];
 * await runIntoDir({ runDir: "runs/golden", bank, agents, epochs: 1, concurrency: 4, priceTable: DEFAULT_PRICE_TABLE });
 * const runs = loadRuns(["runs/golden"]);
 * if (runs.success) console.log(reportMarkdown(buildReport(runs.data.records)));
 */

export { type ModelAgentOptions, modelAgentFactory } from "./agents/model-agent.js";
// Agents: the contract to implement, the model agent, the scripted agents.
export { createModel } from "./agents/providers.js";
export { blankAgentFactory, goldenAgentFactory } from "./agents/scripted-agents.js";
// Reports and the importer of the published 1.0 transcripts.
export { buildReport } from "./analyze/build-report.js";
export { reportMarkdown } from "./analyze/format-tables.js";
export { buildHtmlReport } from "./analyze/html-report.js";
export { importOfficial } from "./analyze/import-official.js";
export { loadRuns } from "./analyze/load-runs.js";
export type { Report } from "./analyze/report-schema.js";
// Banks: the built-in bank, a bank from content or a folder, writing one.
export { type Bank, type BankContent, bankFromContent, type Manifest } from "./bank/bank.js";
export { loadBank, writeBank } from "./bank/load-bank.js";
export type { Task } from "./bank/task-schema.js";
export type { World } from "./bank/world-schema.js";
// Generate (certified) and certify.
export { type CertifyOptions, certifyBank } from "./certify/certify-bank.js";
export type { CertifyReport } from "./certify/certify-schema.js";
export { formatCertifyReport } from "./certify/format-report.js";
export { DEFAULT_SEED, defaultBankContent, GENERATOR_VERSION } from "./generate/default-bank.js";
export type { TrialGrade } from "./grade/grade-schema.js";
export {
  type CertificationLog,
  type CertifiedBankOptions,
  type CertifiedBankResult,
  generateCertifiedBank,
} from "./pipeline/certified-bank.js";
// Run: one trial, or a grid into a run directory (store, transcripts, manifest; resumable).
export { DEFAULT_PRICE_TABLE, type PriceTable } from "./run/price-table.js";
export { type RunAgent, type RunIntoDirOptions, runIntoDir } from "./run/run-into-dir.js";
export { runTrial, type TrialResult } from "./run/run-trial.js";
export type { TrialRecord } from "./run/trial-record.js";
export type {
  Agent,
  AgentFactory,
  AgentToolCall,
  StepResult,
  StopReason,
  TrialSession,
} from "./trial/agent.js";
