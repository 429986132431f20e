export * from "./certified-bank.js";
export * from "./certify-variants.js";
export * from "./protocol-variant-replay.js";
