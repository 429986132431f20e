import { describe, expect, it } from "vitest";
import * as root from "../src/index.js";

describe("the package root", () => {
  it("exports the main verbs and what they take, not the engine's internals", () => {
    expect(Object.keys(root).sort()).toEqual([
      "DEFAULT_PRICE_TABLE",
      "DEFAULT_SEED",
      "GENERATOR_VERSION",
      "bankFromContent",
      "blankAgentFactory",
      "buildHtmlReport",
      "buildReport",
      "certifyBank",
      "createModel",
      "defaultBankContent",
      "formatCertifyReport",
      "generateCertifiedBank",
      "goldenAgentFactory",
      "importOfficial",
      "loadBank",
      "loadRuns",
      "modelAgentFactory",
      "reportMarkdown",
      "runIntoDir",
      "runTrial",
      "writeBank",
    ]);
  });
});
