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
// External agents over MCP, and worlds served as GraphQL or MCP (issue 9).
export { protocolVariant, type VariantProtocol } from "./generate/protocol-variants.js";
export { extractAnswerCard } from "./grade/answer-card.js";
export { gradeAnswerCard, gradeAnswerField } from "./grade/grade-answer-field.js";
export type { TrialGrade } from "./grade/grade-schema.js";
export { GRADER_VERSION, gradeTrial } from "./grade/grade-trial.js";
export * from "./mcp/index.js";
export { runGrid } from "./run/run-grid.js";
export { runTrial, type TrialResult } from "./run/run-trial.js";
export * from "./trial/index.js";
export * from "./workspace/index.js";
export { GRAPHQL_PATH, mountGraphqlWorld } from "./world/graphql-endpoint.js";
export { GRAPHQL_TOKEN_FIELD, graphqlFieldName, worldGraphqlSchema } from "./world/graphql-schema.js";
export * from "./world/index.js";
export { MCP_TOKEN_TOOL, MCP_WORLD_PATH, mountMcpWorld, worldMcpTools } from "./world/mcp-world.js";
export { operationUrl, type ProtocolOperation, serveOperation } from "./world/protocol-operation.js";
export { mountProtocolWorld } from "./world/protocol-world.js";
