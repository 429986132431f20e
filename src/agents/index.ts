export * from "../trial/agent.js";
export * from "../trial/play-golden.js";
export * from "../trial/system-prompt.js";
export * from "./blank-agent.js";
export * from "./scripted-agents.js";
