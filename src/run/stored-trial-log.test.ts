import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { gradeTrial } from "../grade/grade-trial.js";
import type { AgentFactory } from "../trial/agent.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { runIntoDir } from "./run-into-dir.js";
import { runTrial } from "./run-trial.js";
import { transcriptRelPath } from "./store.js";
import {
  decodeTrialLog,
  encodeTrialLog,
  gradeInputOf,
  readTrialLog,
  StoredTrialLogSchema,
  storedTrialLogOf,
  trialLogPath,
} from "./stored-trial-log.js";

const bank = skeletonBank();
const KEY = "sk-test-PLANTED-9f8e7d6c5b4a";

/** Sends the planted key in an Authorization header, an API-key header, a body and its answer. */
const leakyAgent: AgentFactory = {
  name: "leaky",
  forTask: () => ({
    name: "leaky",
    async attempt(session) {
      await session.step({
        toolCalls: [
          {
            name: "execute",
            arguments: {
              request: {
                protocol: "rest",
                method: "POST",
                url: "/oauth/token",
                headers: { Authorization: `Bearer ${KEY}`, "X-Api-Key": KEY },
                body: { client_secret: KEY },
              },
            },
          },
        ],
      });
      session.finish(`my key is ${KEY}\n\`\`\`json\n{"vessel_id": "${KEY}"}\n\`\`\``);
    },
  }),
};

describe("stored trial log", () => {
  it("is written gzip-compressed beside the transcript, with the run's secrets redacted as in the transcript", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "apiflow-log-"));
    const task = bank.tasks[0]!;
    const res = await runIntoDir({
      runDir,
      bank,
      agents: [{ factory: leakyAgent, settings: { kind: "module" } }],
      tasks: [task],
      epochs: 1,
      concurrency: 1,
      priceTable: DEFAULT_PRICE_TABLE,
      secrets: [KEY],
    });
    if (!res.success) throw new Error(res.error.message);
    const rel = transcriptRelPath("leaky", task.id, 1);
    const bytes = readFileSync(join(runDir, trialLogPath(rel)));
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip magic
    const text = gunzipSync(bytes).toString("utf8");
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("PLANTED");
    // The key did reach the log (headers, body, answer) and was redacted there.
    expect(text).toContain("[redacted]");
    expect(readFileSync(join(runDir, rel), "utf8")).not.toContain(KEY);

    const log = readTrialLog(join(runDir, trialLogPath(rel)));
    if (!log.success) throw new Error(log.error.message);
    expect(log.data.events.some((e) => e.type === "exchange" && e.url === "/oauth/token")).toBe(true);
    expect(log.data.final_message).toContain("[redacted]");
    expect(Object.keys(log.data.final_records ?? {}).length).toBeGreaterThan(0);
  });

  it("holds what gradeTrial needs: re-grading the decoded log gives the run's grade byte for byte", async () => {
    for (const task of bank.tasks) {
      const result = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
      const decoded = decodeTrialLog(encodeTrialLog(log));
      if (!decoded.success) throw new Error(decoded.error.message);
      expect(JSON.stringify(gradeTrial(gradeInputOf(decoded.data)))).toBe(JSON.stringify(result.grade));
      expect(decoded.data.answer_key.length).toBe(task.grader.answer.length);
    }
  });

  it("grading is pure: any stored log (any answer, any cut of the events) grades byte-identically twice and after a round trip", async () => {
    const logs = await Promise.all(
      bank.tasks.map(async (task) => {
        const result = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
        return storedTrialLogOf(result, task, bank.manifest.content_hash);
      }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: logs.length - 1 }),
        fc.nat(),
        fc.option(fc.string(), { nil: null }),
        fc.boolean(),
        (which, cut, message, keepMessage) => {
          const base = logs[which]!;
          const log = StoredTrialLogSchema.parse({
            ...base,
            events: base.events.slice(0, cut % (base.events.length + 1)),
            final_message: keepMessage ? base.final_message : message,
          });
          const once = JSON.stringify(gradeTrial(gradeInputOf(log)));
          const twice = JSON.stringify(gradeTrial(gradeInputOf(log)));
          const decoded = decodeTrialLog(encodeTrialLog(log));
          if (!decoded.success) return false;
          return once === twice && once === JSON.stringify(gradeTrial(gradeInputOf(decoded.data)));
        },
      ),
      { numRuns: 200, seed: 18 },
    );
  });

  it("refuses a log of another version or shape with a clear error, never a guess", () => {
    const wrongVersion = decodeTrialLog(encodeTrialLog(JSON.stringify({ log_version: 99 })));
    expect(wrongVersion).toMatchObject({ success: false, error: { code: "log_version" } });
    const garbled = decodeTrialLog(Buffer.from("not gzip"));
    expect(garbled).toMatchObject({ success: false, error: { code: "unreadable" } });
    const invalid = decodeTrialLog(encodeTrialLog(JSON.stringify({ log_version: 1, events: "no" })));
    expect(invalid).toMatchObject({ success: false, error: { code: "invalid" } });
    expect(readTrialLog("/nonexistent/x.events.json.gz")).toMatchObject({
      success: false,
      error: { code: "missing" },
    });
  });
});
