export * from "./agent.js";
export * from "./blank-agent.js";
export * from "./golden-agent.js";
export * from "./scripted-agents.js";
export * from "./system-prompt.js";
