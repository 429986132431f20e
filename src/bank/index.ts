export * from "./bank.js";
export * from "./canonical-json.js";
export * from "./json.js";
export * from "./key-path.js";
export * from "./load-bank.js";
export * from "./rng.js";
export * from "./task-schema.js";
export * from "./world-schema.js";
