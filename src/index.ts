/**
 * APIFlow-Bench as a library. The CLI (`apiflow`) is a thin layer over these modules:
 * bank → world → workspace → agents → grade → run → analyze.
 *
 * @example
 * import { bankFromContent, defaultBankContent, goldenAgentFactory, runTrial } from "apiflow-bench";
 * const bank = bankFromContent(defaultBankContent());
 * const result = await runTrial({ bank, task: bank.tasks[0], agent: goldenAgentFactory, epoch: 1 });
 */
export * from "./agents/index.js";
export * from "./bank/index.js";
export { DEFAULT_SEED, defaultBankContent, GENERATOR_VERSION } from "./generate/default-bank.js";
export { extractAnswerCard } from "./grade/answer-card.js";
export { gradeAnswerCard, gradeAnswerField } from "./grade/grade-answer-field.js";
export type { TrialGrade } from "./grade/grade-schema.js";
export { GRADER_VERSION, gradeTrial } from "./grade/grade-trial.js";
export { runGrid } from "./run/run-grid.js";
export { runTrial, type TrialResult } from "./run/run-trial.js";
export * from "./workspace/index.js";
export * from "./world/index.js";
