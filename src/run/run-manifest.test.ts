import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../trial/stop-conditions.js";
import { DEFAULT_PRICE_TABLE, priceTokens } from "./price-table.js";
import { buildRunManifest, manifestConflicts, mergeManifests } from "./run-manifest.js";
import { formatProgressLine } from "./run-progress.js";

const base = {
  bankHash: "a".repeat(64),
  bankName: "b",
  limits: DEFAULT_LIMITS,
  priceTableVersion: "p1",
  created: "2026-01-01T00:00:00Z",
};

describe("run manifest", () => {
  it("accepts new agents, refuses other settings for the same agent or other pinned versions", () => {
    const old = buildRunManifest({
      ...base,
      agents: { m: { kind: "model", model_api: "openai/m", temperature: 1 } },
    });
    const more = buildRunManifest({ ...base, agents: { golden: { kind: "scripted" } } });
    expect(manifestConflicts(old, more)).toEqual([]);
    expect(mergeManifests(old, more).agents).toEqual(["golden", "m"]);
    const hotter = buildRunManifest({
      ...base,
      agents: { m: { kind: "model", model_api: "openai/m", temperature: 0 } },
    });
    expect(manifestConflicts(old, hotter)).toEqual([expect.stringMatching(/^m settings: /)]);
    const repriced = buildRunManifest({ ...base, priceTableVersion: "p2", agents: {} });
    expect(manifestConflicts(old, repriced)).toEqual(["price_table_version: p1 ≠ p2"]);
    const otherBank = buildRunManifest({ ...base, bankHash: "c".repeat(64), agents: {} });
    expect(manifestConflicts(old, otherBank)[0]).toMatch(/^bank_hash: /);
  });
});

describe("pricing and progress", () => {
  it("a base URL's port does not pin a run; its host and path do", () => {
    const at = (base_url: string) =>
      buildRunManifest({
        ...base,
        agents: { m: { kind: "model", model_api: "openai-compatible/m", base_url } },
      });
    const old = at("http://127.0.0.1:8000/v1");
    expect(manifestConflicts(old, at("http://127.0.0.1:41234/v1"))).toEqual([]);
    expect(manifestConflicts(old, at("http://10.0.0.2:8000/v1"))).toEqual([
      expect.stringMatching(/^m settings: /),
    ]);
    expect(manifestConflicts(old, at("http://127.0.0.1:8000/v2"))).toEqual([
      expect.stringMatching(/^m settings: /),
    ]);
    // The salt pins a run too, once both sides have one.
    const salted = buildRunManifest({ ...base, agents: {}, salt: "s1" });
    expect(manifestConflicts(salted, buildRunManifest({ ...base, agents: {}, salt: "s2" }))).toEqual([
      "salt: s1 ≠ s2",
    ]);
  });

  it("prices tokens per million, null for unknown models, zero for scripted agents", () => {
    const tokens = {
      input: 1_000_000,
      output: 1_000_000,
      cache_read: 1_000_000,
      cache_write: 0,
      total: 3_000_000,
    };
    expect(priceTokens(DEFAULT_PRICE_TABLE, "openai/gpt-5-mini", tokens)).toBeCloseTo(0.25 + 2 + 0.025);
    expect(priceTokens(DEFAULT_PRICE_TABLE, "openai-compatible/unknown", tokens)).toBeNull();
    expect(priceTokens(DEFAULT_PRICE_TABLE, null, tokens)).toBe(0);
  });

  it("formats one progress line per agent with done/total, passes, retries, cost and ETA", () => {
    const line = formatProgressLine(
      { name: "m", total: 10, done: 4, passed: 3, doneHere: 2, retries: 5, costUsd: 0.5, costUnknown: false },
      60_000,
    );
    expect(line).toBe("m  4/10  3 pass  5 retries  $0.50  ETA 3m00s");
  });
});
