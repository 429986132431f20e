export * from "./canary.js";
export * from "./engine.js";
export * from "./event-log.js";
export * from "./openapi.js";
export * from "./transport.js";
export * from "./trial-world.js";
