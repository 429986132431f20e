export { disconnectDetail, type McpBridgeMode, mcpBridgeAgent, TRIAL_MCP_PATH } from "./mcp-bridge-agent.js";
export { mcpAgentFactory, mcpAgentName, renderCommand } from "./mcp-external-agent.js";
export { DELIVER_TOOL, DeliverArgsSchema, deliveredMessage, trialMcpServer } from "./trial-mcp-server.js";
