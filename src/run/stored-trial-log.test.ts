import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { v3Text, versionText } from "../../test/support/stored-log-versions.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { JsonObject } from "../bank/json.js";
import { gradeTrial } from "../grade/grade-trial.js";
import type { AgentFactory } from "../trial/agent.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { runIntoDir } from "./run-into-dir.js";
import { runTrial } from "./run-trial.js";
import { readSizedGzip, sizedGzip } from "./sized-gzip.js";
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

  it("version 6 is sized gzip members (head, bodies, answer key and small resources; task part; one per other resource, a line per record) that zcat shows as JSON Lines; a queue's gunzipped text re-encodes to the same bytes", async () => {
    const task = bank.tasks[0]!;
    const ran = storedTrialLogOf(
      await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
      task,
      bank.manifest.content_hash,
    );
    // A resource too large to be inline (2 KiB of records or more) beside the trial's small ones.
    const large = Array.from({ length: 40 }, (_, i) => ({ id: `L-${i}`, note: "x".repeat(60) }));
    const log = { ...ran, final_records: { ...ran.final_records, large } };
    const bytes = encodeTrialLog(log);
    const members = readSizedGzip(bytes);
    const resources = Object.entries(log.final_records);
    const inline = resources.filter(([name]) => name !== "large");
    expect(inline.flatMap(([, r]) => r).length).toBeGreaterThan(inline.length);
    expect(members?.length).toBe(3);
    const lines = gunzipSync(bytes).toString("utf8").trimEnd().split("\n");
    const exchanges = log.events.filter((e) => e.type === "exchange");
    const inlineRecords = inline.flatMap(([, r]) => r);
    expect(lines.length).toBe(1 + exchanges.length + 1 + inlineRecords.length + 1 + large.length);
    const head = JSON.parse(lines[0]!);
    expect(head).toMatchObject({
      log_version: 6,
      task_id: task.id,
      final_resources: resources.map(([resource, r]) => ({
        resource,
        records: r.length,
        inline: resource !== "large",
      })),
    });
    // What every trial of the task stores alike is in the task part, not the head; a body is the
    // line of its exchange's rank, not a field of the head; the answer key is the line after them.
    expect(head).not.toHaveProperty("requirements");
    expect(head).not.toHaveProperty("grader");
    expect(head).not.toHaveProperty("answer_key");
    for (const e of head.events) expect(e).not.toHaveProperty("response_body");
    expect(JSON.parse(lines[1]!)).toEqual(exchanges[0]!.response_body);
    expect(JSON.parse(lines[1 + exchanges.length]!)).toEqual(JSON.parse(JSON.stringify(log.answer_key)));
    const afterKey = 2 + exchanges.length;
    expect(lines.slice(afterKey, afterKey + inlineRecords.length).map((l) => JSON.parse(l))).toEqual(
      inlineRecords,
    );
    const taskPart = JSON.parse(lines[afterKey + inlineRecords.length]!);
    expect(taskPart.grader).toEqual(JSON.parse(JSON.stringify(log.grader)));
    expect(taskPart.graded_segments).toEqual(log.graded_segments);
    expect(taskPart.requirements).toEqual(log.requirements);
    expect(lines.slice(afterKey + inlineRecords.length + 1).map((l) => JSON.parse(l))).toEqual(large);
    expect(encodeTrialLog(gunzipSync(bytes).toString("utf8"))).toEqual(bytes);
    // Eager and lazy decoding give the log that was stored, and so does the same text as one gzip stream.
    const expected = JSON.parse(JSON.stringify(log));
    for (const decoded of [
      decodeTrialLog(bytes),
      decodeTrialLog(bytes, { lazy: true }),
      decodeTrialLog(gzipSync(gunzipSync(bytes))),
      decodeTrialLog(gzipSync(gunzipSync(bytes)), { lazy: true }),
    ]) {
      if (!decoded.success) throw new Error(decoded.error.message);
      expect(decoded.data.log_version).toBe(6);
      expect(JSON.parse(JSON.stringify(decoded.data))).toEqual(expected);
    }
    // Unknown final records: no resource member. A resource without records: inline, no line.
    const unknown = encodeTrialLog({ ...log, final_records: null });
    expect(readSizedGzip(unknown)?.length).toBe(2);
    for (const lazy of [false, true]) {
      const decoded = decodeTrialLog(unknown, { lazy });
      if (!decoded.success) throw new Error(decoded.error.message);
      expect(decoded.data.final_records).toBeNull();
      expect(decoded.data.answer_key).toEqual(JSON.parse(JSON.stringify(log.answer_key)));
    }
    const emptied = { ...log, final_records: { none: [], ...log.final_records } };
    expect(readSizedGzip(encodeTrialLog(emptied))?.length).toBe(3);
    for (const bytes of [encodeTrialLog(emptied), gzipSync(gunzipSync(encodeTrialLog(emptied)))]) {
      for (const lazy of [false, true]) {
        const read = decodeTrialLog(bytes, { lazy });
        if (!read.success) throw new Error(read.error.message);
        expect(JSON.parse(JSON.stringify(read.data.final_records))).toEqual(
          JSON.parse(JSON.stringify(emptied.final_records)),
        );
      }
    }
  });

  it.each([
    [5, "the answer key in the head, a member per resource"],
    [4, "a resource's records on one line, body line numbers in the head"],
  ] as const)(
    "still reads version %i logs (%s), as members or one gzip stream, and grades them as before",
    async (version, _layout) => {
      for (const task of bank.tasks.slice(0, 3)) {
        const result = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
        const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
        const text = versionText(log, version);
        expect(readSizedGzip(encodeTrialLog(text))?.length).toBe(
          2 + Object.keys(log.final_records ?? {}).length,
        );
        for (const bytes of [encodeTrialLog(text), gzipSync(text)]) {
          for (const lazy of [false, true]) {
            const decoded = decodeTrialLog(bytes, { lazy });
            if (!decoded.success) throw new Error(decoded.error.message);
            expect(decoded.data.log_version).toBe(version);
            expect(JSON.parse(JSON.stringify(decoded.data))).toEqual(
              JSON.parse(JSON.stringify({ ...log, log_version: version })),
            );
            expect(JSON.stringify(gradeTrial(gradeInputOf(decoded.data)))).toBe(JSON.stringify(result.grade));
          }
        }
      }
    },
  );

  it("a lazily decoded log keeps no view of the bytes it was decoded from (a re-grade reuses its read buffer)", async () => {
    const task = bank.tasks[0]!;
    const log = storedTrialLogOf(
      await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
      task,
      bank.manifest.content_hash,
    );
    const bytes = Buffer.from(encodeTrialLog(log));
    const decoded = decodeTrialLog(bytes, { lazy: true });
    if (!decoded.success) throw new Error(decoded.error.message);
    bytes.fill(0);
    expect(JSON.parse(JSON.stringify(decoded.data))).toEqual(JSON.parse(JSON.stringify(log)));
  });

  it("still reads version 3 logs (requirements in the head, every resource in one member), as members or one gzip stream, and grades them as before", async () => {
    for (const task of bank.tasks.slice(0, 3)) {
      const result = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
      const text = v3Text(log);
      expect(readSizedGzip(encodeTrialLog(text))?.length).toBe(3);
      for (const bytes of [encodeTrialLog(text), gzipSync(text)]) {
        for (const lazy of [false, true]) {
          const decoded = decodeTrialLog(bytes, { lazy });
          if (!decoded.success) throw new Error(decoded.error.message);
          expect(decoded.data.log_version).toBe(3);
          expect(JSON.parse(JSON.stringify(decoded.data))).toEqual(
            JSON.parse(JSON.stringify({ ...log, log_version: 3 })),
          );
          expect(JSON.stringify(gradeTrial(gradeInputOf(decoded.data)))).toBe(JSON.stringify(result.grade));
        }
      }
    }
  });

  it("still reads version 2 logs (the final records on one line), as members or one gzip stream, and grades them as before", async () => {
    for (const task of bank.tasks.slice(0, 3)) {
      const result = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
      const v3 = v3Text(log).trimEnd().split("\n");
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

  it("a head of the wrong shape is refused naming what is wrong; one the fast check leaves to the schema (no protocol) still reads", async () => {
    const task = bank.tasks[0]!;
    const ran = storedTrialLogOf(
      await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
      task,
      bank.manifest.content_hash,
    );
    // A resource too large to be inline, so that version 6 has a resource member too.
    const log = { ...ran, final_records: { ...ran.final_records, large: LARGE } };
    for (const version of [4, 5, 6] as const) {
      const text = versionText(log, version);
      const lines = text.trimEnd().split("\n");
      const withHead = (edit: (head: Head) => void) => {
        const head = JSON.parse(lines[0]!);
        edit(head);
        return encodeTrialLog(`${[JSON.stringify(head), ...lines.slice(1)].join("\n")}\n`);
      };
      const cases: Array<[(h: Head) => void, string]> = [
        [(h) => (h.epoch = 0), "epoch"],
        [(h) => (h.stop_reason = "bored"), "stop_reason"],
        [(h) => (h.events[0]!.seq = -1), "events.0.seq"],
        [(h) => (h.events[0]!.status = "200"), "events.0.status"],
        [(h) => (h.events[0]!.request_headers = { a: 1 }), "events.0.request_headers"],
        [(h) => (h.events[0]!.surprise = true), "events.0"],
        [(h) => delete h.agent, "agent"],
        [
          (h) =>
            (h.final_resources =
              version === 4
                ? ["a", "a"]
                : [
                    { resource: "a", records: 0, ...(version === 6 ? { inline: true } : {}) },
                    { resource: "a", records: 0, ...(version === 6 ? { inline: true } : {}) },
                  ]),
          "final_resources",
        ],
      ];
      for (const [edit, path] of cases) {
        for (const lazy of [false, true]) {
          const res = decodeTrialLog(withHead(edit), { lazy });
          expect(res).toMatchObject({ success: false, error: { code: "invalid" } });
          if (!res.success) expect(res.error.message.startsWith(`${path}:`)).toBe(true);
        }
      }
      // An exchange without its protocol is valid (the schema fills in "rest"): read through the schema.
      const noProtocol = decodeTrialLog(
        withHead((h) => delete h.events[0]!.protocol),
        { lazy: true },
      );
      if (!noProtocol.success) throw new Error(noProtocol.error.message);
      expect(noProtocol.data.events[0]).toMatchObject({ type: "exchange", protocol: "rest" });
      expect(JSON.parse(JSON.stringify(noProtocol.data))).toEqual(
        JSON.parse(JSON.stringify({ ...log, log_version: version })),
      );
      // Members that do not match the head's resources are refused.
      const members = readSizedGzip(encodeTrialLog(text))!;
      expect(decodeTrialLog(Buffer.concat(members.slice(0, -1)))).toMatchObject({
        success: false,
        error: { code: "invalid", message: expect.stringContaining("gzip members") },
      });
    }
    // Version 6: a head counting other records than its resource's member holds is refused where
    // the resource is read; one miscounting an inline resource, up front (the first member's lines).
    const miscounted = (resource: string) => {
      const lines = gunzipSync(encodeTrialLog(log)).toString("utf8").trimEnd().split("\n");
      const head = JSON.parse(lines[0]!) as Head & {
        final_resources: Array<{ resource: string; records: number }>;
      };
      head.final_resources.find((r) => r.resource === resource)!.records += 1;
      const texts = readSizedGzip(encodeTrialLog(log))!.map((m) => gunzipSync(m).toString("utf8"));
      texts[0] = [JSON.stringify(head), ...texts[0]!.split("\n").slice(1)].join("\n");
      return sizedGzip(texts);
    };
    const lazily = decodeTrialLog(miscounted("large"), { lazy: true });
    if (!lazily.success) throw new Error(lazily.error.message);
    expect(() => lazily.data.final_records?.large).toThrow(/records, the head says/);
    expect(decodeTrialLog(miscounted("large"))).toMatchObject({ success: false, error: { code: "invalid" } });
    expect(decodeTrialLog(gzipSync(gunzipSync(miscounted("large"))))).toMatchObject({
      success: false,
      error: { code: "invalid", message: expect.stringContaining("lines: expected") },
    });
    const small = Object.keys(ran.final_records ?? {})[0]!;
    for (const lazy of [false, true])
      expect(decodeTrialLog(miscounted(small), { lazy })).toMatchObject({
        success: false,
        error: { code: "invalid", message: expect.stringContaining("lines of the first member") },
      });
  });

  it("a payload that is not JSON is refused: up front when decoding eagerly, where it is read when lazily", async () => {
    const task = bank.tasks[0]!;
    const ran = storedTrialLogOf(
      await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
      task,
      bank.manifest.content_hash,
    );
    // A second resource with records after the trial's, so one can be read while another is broken.
    const final_records: Record<string, JsonObject[]> = { ...ran.final_records, large: LARGE };
    const log = { ...ran, final_records };
    const lines = gunzipSync(encodeTrialLog(log)).toString("utf8").trimEnd().split("\n");
    const broken = (i: number) =>
      encodeTrialLog(`${lines.map((l, j) => (j === i ? "{not json" : l)).join("\n")}\n`);
    const names = Object.keys(log.final_records ?? {}).filter(
      (n) => (log.final_records?.[n]?.length ?? 0) > 0,
    );
    expect(names.length).toBeGreaterThan(1);
    const body = broken(1);
    expect(readSizedGzip(body)?.length).toBe(3);
    expect(decodeTrialLog(body)).toMatchObject({ success: false, error: { code: "invalid" } });
    const lazy = decodeTrialLog(body, { lazy: true });
    if (!lazy.success) throw new Error(lazy.error.message);
    const first = lazy.data.events.find((e) => e.type === "exchange")!;
    expect(() => (first.type === "exchange" ? first.response_body : null)).toThrow(TrialLogPayloadError);
    // A resource's line is read when that resource is (the last line: the last record of the last
    // resource with records, the one too large to be inline).
    expect(names.at(-1)).toBe(Object.keys(log.final_records ?? {}).at(-1));
    const records = decodeTrialLog(broken(lines.length - 1), { lazy: true });
    if (!records.success) throw new Error(records.error.message);
    expect(() => records.data.final_records?.[names.at(-1)!]).toThrow(TrialLogPayloadError);
    expect(records.data.final_records?.[names[0]!]).toEqual(log.final_records?.[names[0]!]);
    expect(decodeTrialLog(broken(lines.length - 1))).toMatchObject({
      success: false,
      error: {
        code: "invalid",
        message: expect.stringContaining(
          `final_records.${names.at(-1)}.${log.final_records![names.at(-1)!]!.length - 1}: not JSON`,
        ),
      },
    });
    // A broken answer key is refused up front when decoding eagerly, where it is read when lazily.
    const keyLine = 1 + log.events.filter((e) => e.type === "exchange").length;
    expect(decodeTrialLog(broken(keyLine))).toMatchObject({
      success: false,
      error: { code: "invalid", message: "answer_key: not JSON" },
    });
    const key = decodeTrialLog(broken(keyLine), { lazy: true });
    if (!key.success) throw new Error(key.error.message);
    expect(() => key.data.answer_key).toThrow(TrialLogPayloadError);
    expect(key.data.events).toHaveLength(log.events.length);
    // A broken task part is refused up front, lazily too.
    const taskLine = keyLine + 1 + (ran.final_records ? Object.values(ran.final_records).flat().length : 0);
    expect(decodeTrialLog(broken(taskLine), { lazy: true })).toMatchObject({
      success: false,
      error: { code: "invalid", message: expect.stringContaining("task") },
    });
    // A damaged member fails its checksum, where it is read when lazily.
    const bytes = Buffer.from(encodeTrialLog(log));
    bytes[bytes.length - 12] = (bytes[bytes.length - 12]! + 1) % 256;
    expect(decodeTrialLog(bytes)).toMatchObject({ success: false });
    const damaged = decodeTrialLog(bytes, { lazy: true });
    if (!damaged.success) throw new Error(damaged.error.message);
    expect(() => damaged.data.final_records?.[names.at(-1)!]).toThrow(TrialLogPayloadError);
  });
});

/** Records too many to be stored inline in a version 6 log (2 KiB of lines or more). */
const LARGE: JsonObject[] = Array.from({ length: 40 }, (_, i) => ({ id: `L-${i}`, note: "x".repeat(60) }));

/** A stored head as JSON.parse gives it, to break one field at a time. */
type Head = Record<string, unknown> & { events: Array<Record<string, unknown>>; [key: string]: unknown };
