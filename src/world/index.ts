export * from "./canary.js";
export * from "./engine.js";
export * from "./event-log.js";
export * from "./example-world.js";
export * from "./openapi.js";
export type { Reply } from "./reply.js";
export * from "./transport.js";
export * from "./trial-world.js";
export { type FieldProblem, validateBody } from "./validate-body.js";
