export { mcpAgentFactory, mcpAgentName, renderCommand } from "../agents/mcp-external-agent.js";
export { disconnectDetail, type McpBridgeMode, mcpBridgeAgent, TRIAL_MCP_PATH } from "./mcp-bridge-agent.js";
export { type McpTrialError, type McpTrialOptions, runMcpTrial } from "./run-mcp-trial.js";
export { DELIVER_TOOL, DeliverArgsSchema, deliveredMessage, trialMcpServer } from "./trial-mcp-server.js";
