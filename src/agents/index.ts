export * from "./blank-agent.js";
export * from "./scripted-agents.js";
