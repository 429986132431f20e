export * from "./entity-ref.js";
export * from "./placeholders.js";
export * from "./tool-definitions.js";
export * from "./workspace.js";
