import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { gradeTrial } from "../grade/grade-trial.js";
import type { AgentFactory } from "../trial/agent.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { runIntoDir } from "./run-into-dir.js";
import { runTrial } from "./run-trial.js";
import { readSizedGzip } from "./sized-gzip.js";
import { transcriptRelPath } from "./store.js";
import {
  decodeTrialLog,
  encodeTrialLog,
  gradeInputOf,
  readTrialLog,
  StoredTrialLogSchema,
  storedTrialLogOf,
  TrialLogPayloadError,
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
          const bytes = encodeTrialLog(log);
          const decoded = decodeTrialLog(bytes);
          const lazy = decodeTrialLog(bytes, { lazy: true });
          if (!decoded.success || !lazy.success) return false;
          return (
            once === twice &&
            once === JSON.stringify(gradeTrial(gradeInputOf(decoded.data))) &&
            once === JSON.stringify(gradeTrial(gradeInputOf(lazy.data)))
          );
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

  it("version 3 is three sized gzip members (head and bodies, grader, records by resource) that zcat shows as JSON Lines; a queue's gunzipped text re-encodes to the same bytes", async () => {
    const task = bank.tasks[0]!;
    const log = storedTrialLogOf(
      await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
      task,
      bank.manifest.content_hash,
    );
    const bytes = encodeTrialLog(log);
    const members = readSizedGzip(bytes);
    expect(members?.length).toBe(3);
    const lines = gunzipSync(bytes).toString("utf8").trimEnd().split("\n");
    const exchanges = log.events.filter((e) => e.type === "exchange");
    const resources = Object.keys(log.final_records ?? {});
    expect(resources.length).toBeGreaterThan(0);
    expect(lines.length).toBe(1 + exchanges.length + 1 + 1 + resources.length);
    expect(JSON.parse(lines[0]!)).toMatchObject({ log_version: 3, task_id: task.id });
    expect(JSON.parse(lines[1]!)).toEqual(exchanges[0]!.response_body);
    const grader = 1 + exchanges.length;
    expect(JSON.parse(lines[grader]!)).toEqual(JSON.parse(JSON.stringify(log.grader)));
    expect(JSON.parse(lines[grader + 1]!)).toEqual(resources);
    expect(JSON.parse(lines.at(-1)!)).toEqual(log.final_records?.[resources.at(-1)!]);
    expect(encodeTrialLog(gunzipSync(bytes).toString("utf8"))).toEqual(bytes);
    // Eager and lazy decoding give the log that was stored, and so does the same text as one gzip stream.
    const expected = JSON.parse(JSON.stringify(log));
    for (const decoded of [
      decodeTrialLog(bytes),
      decodeTrialLog(bytes, { lazy: true }),
      decodeTrialLog(gzipSync(gunzipSync(bytes))),
    ]) {
      if (!decoded.success) throw new Error(decoded.error.message);
      expect(JSON.parse(JSON.stringify(decoded.data))).toEqual(expected);
    }
  });

  it("still reads version 2 logs (the final records on one line), as members or one gzip stream, and grades them as before", async () => {
    for (const task of bank.tasks.slice(0, 3)) {
      const result = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
      const v3 = gunzipSync(encodeTrialLog(log)).toString("utf8").trimEnd().split("\n");
      const n = 1 + log.events.filter((e) => e.type === "exchange").length;
      const head = { ...JSON.parse(v3[0]!), log_version: 2 };
      const v2 = [JSON.stringify(head), ...v3.slice(1, n + 1), JSON.stringify(log.final_records)];
      const text = `${v2.join("\n")}\n`;
      expect(readSizedGzip(encodeTrialLog(text))?.length).toBe(3);
      for (const bytes of [encodeTrialLog(text), gzipSync(text)]) {
        for (const lazy of [false, true]) {
          const decoded = decodeTrialLog(bytes, { lazy });
          if (!decoded.success) throw new Error(decoded.error.message);
          expect(decoded.data.log_version).toBe(2);
          expect(JSON.parse(JSON.stringify(decoded.data.final_records))).toEqual(log.final_records);
          expect(JSON.stringify(gradeTrial(gradeInputOf(decoded.data)))).toBe(JSON.stringify(result.grade));
        }
      }
    }
  });

  it("still reads version 1 logs (one JSON document) and grades them as before", async () => {
    for (const task of bank.tasks.slice(0, 3)) {
      const result = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
      const v1 = decodeTrialLog(gzipSync(JSON.stringify({ ...log, log_version: 1 })));
      if (!v1.success) throw new Error(v1.error.message);
      expect(v1.data.log_version).toBe(1);
      expect(JSON.stringify(gradeTrial(gradeInputOf(v1.data)))).toBe(JSON.stringify(result.grade));
    }
  });

  it("a payload that is not JSON is refused: up front when decoding eagerly, where it is read when lazily", async () => {
    const task = bank.tasks[0]!;
    const log = storedTrialLogOf(
      await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
      task,
      bank.manifest.content_hash,
    );
    const lines = gunzipSync(encodeTrialLog(log)).toString("utf8").trimEnd().split("\n");
    const broken = (i: number) =>
      encodeTrialLog(`${lines.map((l, j) => (j === i ? "{not json" : l)).join("\n")}\n`);
    const body = broken(1);
    expect(readSizedGzip(body)?.length).toBe(3);
    expect(decodeTrialLog(body)).toMatchObject({ success: false, error: { code: "invalid" } });
    const lazy = decodeTrialLog(body, { lazy: true });
    if (!lazy.success) throw new Error(lazy.error.message);
    const first = lazy.data.events.find((e) => e.type === "exchange")!;
    expect(() => (first.type === "exchange" ? first.response_body : null)).toThrow(TrialLogPayloadError);
    // A resource's line is read when that resource is; the line naming the resources with the records.
    const records = decodeTrialLog(broken(lines.length - 1), { lazy: true });
    if (!records.success) throw new Error(records.error.message);
    const names = Object.keys(records.data.final_records ?? {});
    expect(() => records.data.final_records?.[names.at(-1)!]).toThrow(TrialLogPayloadError);
    expect(decodeTrialLog(broken(lines.length - 1))).toMatchObject({
      success: false,
      error: { code: "invalid", message: expect.stringContaining(`final_records.${names.at(-1)}: not JSON`) },
    });
    const namesLine = lines.length - 1 - names.length;
    const noNames = decodeTrialLog(broken(namesLine), { lazy: true });
    if (!noNames.success) throw new Error(noNames.error.message);
    expect(() => noNames.data.final_records).toThrow(TrialLogPayloadError);
    expect(decodeTrialLog(broken(namesLine - 1))).toMatchObject({
      success: false,
      error: { code: "invalid" },
    });
    // A damaged member fails its checksum.
    const bytes = Buffer.from(encodeTrialLog(log));
    bytes[bytes.length - 12] = (bytes[bytes.length - 12]! + 1) % 256;
    expect(decodeTrialLog(bytes)).toMatchObject({ success: false });
  });
});
