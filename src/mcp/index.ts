export { DEFAULT_KILL_GRACE_MS, runAgentProcess } from "./agent-process.js";
export {
  DEFAULT_IDLE_SECONDS,
  disconnectDetail,
  type McpBridgeMode,
  type McpClientInfo,
  mcpBridgeAgent,
  TRIAL_MCP_PATH,
} from "./mcp-bridge-agent.js";
export {
  agentNameProblem,
  type McpAgentOptions,
  mcpAgentFactory,
  mcpAgentName,
  mcpClientAgentName,
  renderCommand,
} from "./mcp-external-agent.js";
export { StrictStdioServerTransport } from "./strict-stdio-transport.js";
export {
  DELIVER_TOOL,
  DeliverArgsSchema,
  deliveredMessage,
  mcpInstructions,
  TICKET_PROMPT,
  TICKET_RESOURCE_URI,
  trialMcpServer,
} from "./trial-mcp-server.js";
