import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { baselineAgentFactory } from "../agents/baseline-agent.js";
import { runTrial } from "../run/run-trial.js";
import { buildTranscript } from "../run/transcript-writer.js";
import { parseQueueUrl } from "./queue-url.js";
import { fromJobResult, TrialJobResultSchema, toJobResult, trialJobId } from "./trial-job.js";

describe("trial jobs", () => {
  it("job ids are a pure function of (bank, agent, task, epoch), distinct per trial, without ':'", () => {
    const key = { bank_hash: "abc", agent: "golden", task_id: "t1", epoch: 1 };
    expect(trialJobId(key)).toBe(trialJobId({ ...key }));
    const ids = new Set([
      trialJobId(key),
      trialJobId({ ...key, epoch: 2 }),
      trialJobId({ ...key, agent: "baseline" }),
      trialJobId({ ...key, task_id: "t2" }),
      trialJobId({ ...key, bank_hash: "abd" }),
      // Fields are not simply concatenated: "a"+"b-c" and "a-b"+"c" differ.
      trialJobId({ ...key, agent: "a", task_id: "b-c" }),
      trialJobId({ ...key, agent: "a-b", task_id: "c" }),
    ]);
    expect(ids.size).toBe(7);
    for (const id of ids) expect(id).toMatch(/^trial-[0-9a-f]{40}$/);
  });

  it("a result survives the trip through Redis as JSON and gives the same transcript", async () => {
    const bank = skeletonBank();
    const task = bank.tasks[3] as (typeof bank.tasks)[number];
    const result = await runTrial({ bank, task, agent: baselineAgentFactory, epoch: 2 });
    const wire = JSON.parse(JSON.stringify(toJobResult(result))) as unknown;
    const parsed = TrialJobResultSchema.parse(wire);
    const ctx = { model: "baseline", provenance: { bench: "APIFlow-Bench" } };
    expect(buildTranscript(fromJobResult(parsed), ctx)).toEqual(buildTranscript(result, ctx));
  });
});

describe("parseQueueUrl", () => {
  it("reads host, port and database; masks a password", () => {
    const a = parseQueueUrl("redis://127.0.0.1:6390");
    expect(a).toEqual({
      success: true,
      data: { display: "redis://127.0.0.1:6390", connection: { host: "127.0.0.1", port: 6390, db: 0 } },
    });
    const b = parseQueueUrl("rediss://user:s3cret@cache.internal/3");
    if (!b.success) throw new Error(b.error.message);
    expect(b.data.display).toBe("rediss://user:***@cache.internal/3");
    expect(b.data.connection).toEqual({
      host: "cache.internal",
      port: 6379,
      db: 3,
      username: "user",
      password: "s3cret",
      tls: {},
    });
  });

  it("refuses what is not a Redis URL, in one line without the password", () => {
    for (const bad of ["127.0.0.1:6379", "http://h:1", "redis://h:1/x", "redis://h:1/0?a=1", "nonsense"]) {
      const r = parseQueueUrl(bad);
      expect(r.success, bad).toBe(false);
      if (!r.success) {
        expect(r.error.code).toBe("bad_queue_url");
        expect(r.error.message).not.toContain("\n");
      }
    }
    const r = parseQueueUrl("redis://:pw123456@h:1/x");
    expect(r.success || r.error.message.includes("pw123456")).toBe(false);
  });
});
