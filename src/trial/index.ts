export * from "./agent.js";
export * from "./play-golden.js";
export * from "./stop-conditions.js";
export * from "./system-prompt.js";
export * from "./transcript-schema.js";
