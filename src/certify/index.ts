export {
  type CertifyOptions,
  certifyBank,
  dropUncertified,
  failedTaskIds,
  GATE_VERSIONS,
  type GateTime,
  recordGates,
} from "./certify-bank.js";
export {
  type CertifyReport,
  CertifyReportSchema,
  GATE_NAMES,
  type GateFailure,
  type GateName,
  type GateReport,
  GateReportSchema,
} from "./certify-schema.js";
export { chainReplayGate } from "./chain-replay.js";
export { discoverabilityGate } from "./discoverability.js";
export { exploitAuditGate } from "./exploit-audit.js";
export { EXPLOITS, type Exploit } from "./exploits/index.js";
export { formatCertifyReport } from "./format-report.js";
export { leakGate } from "./leak.js";
export { solvabilityGate } from "./solvability.js";
export { triadGate } from "./triad.js";
export { freshTrials, sharedTrials, type TrialRunner } from "./trial-tree.js";
