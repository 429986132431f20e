import { describe, expect, it } from "vitest";
import { createModel, describeModel } from "./providers.js";

describe("describeModel (the queue coordinator's model agent)", () => {
  it("needs no key, keeps no secret, and checks the id and base URL as createModel does", async () => {
    expect(createModel("openai/gpt-5-mini", { env: {} })).toMatchObject({
      success: false,
      error: { code: "missing_key" },
    });
    const d = describeModel("openai/gpt-5-mini", { baseUrl: "https://user:pw@proxy.example/v1?x=1" });
    if (!d.success) throw new Error(d.error.message);
    expect(d.data.spec).toMatchObject({ provider: "openai", slug: "gpt-5-mini" });
    expect(d.data.secrets).toEqual([]);
    expect(d.data.publicBaseUrl).toBe("https://proxy.example/v1");
    for (const [id, baseUrl, code] of [
      ["gpt-5-mini", undefined, "bad_model_id"],
      ["acme/m", undefined, "unknown_provider"],
      ["openai-compatible/llama3", undefined, "missing_base_url"],
      ["openai/gpt-5-mini", "not a url", "bad_base_url"],
    ] as const) {
      const made = createModel(id, { env: { OPENAI_API_KEY: "k" }, ...(baseUrl ? { baseUrl } : {}) });
      const described = describeModel(id, baseUrl ? { baseUrl } : {});
      expect(described).toMatchObject({ success: false, error: { code } });
      expect(made).toMatchObject({ success: false, error: { code } });
    }
  });

  it("refuses every call: a coordinator never runs a trial", async () => {
    const d = describeModel("anthropic/claude-sonnet-4-6", {});
    if (!d.success) throw new Error(d.error.message);
    await expect(d.data.model.doGenerate({ prompt: [] })).rejects.toThrow(/only described here/);
  });
});
