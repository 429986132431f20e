import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { formatRequirement } from "../grade/grade-trial.js";
import { buildReport } from "./build-report.js";
import { failedRequirements } from "./failed-requirements.js";
import { renderTerminal, reportMarkdown, reportTables } from "./format-tables.js";
import { ReportSchema } from "./report-schema.js";

// Issue 15 item 6: `apiflow report` (terminal and Markdown) says which ticket requirements failed.

const reason = (check: string, id: string, sentence?: string) =>
  `1/3 predicates matched; failed: G1 labour; first failure: ${check}${formatRequirement(id, sentence)}: it failed`;

const records = [
  trial("a", "v56-w01-sub02", 1, "fail", {
    failure_reason: reason("call status_moved", "note_settled", "Move CN-12 to `settled`."),
  }),
  trial("a", "v56-w01-sub02", 2, "fail", {
    failure_reason: reason("call status_moved", "note_settled", "Move CN-12 to `settled`."),
  }),
  trial("b", "v56-w02-sub02", 1, "fail", {
    failure_reason: reason("call status_moved", "note_settled", "Move CN-40 to `settled`."),
  }),
  trial("b", "v56-w01-sub03", 1, "abstained", {
    failure_reason: `agent abstained (clarify): which one?; ${reason("order polled", "confirmed_when_ready")}`,
  }),
  // Named by none: a limit, a pass, an unscored trial.
  trial("a", "v56-w01-sub03", 1, "limit", { failure_reason: "step limit reached (tool_call_limit): 40" }),
  trial("b", "v56-w02-sub02", 2, "pass"),
  trial("b", "v56-w02-sub02", 3, "harness_error", { failure_reason: reason("call x", "ignored") }),
];

describe("failed requirements in the report", () => {
  it("counts the failed trials whose first failure names each requirement, most failed first", () => {
    expect(failedRequirements(records)).toEqual([
      {
        requirement: "note_settled",
        trials: 3,
        tasks: 2,
        example_task: "v56-w01-sub02",
        sentence: "Move CN-12 to `settled`.",
      },
      {
        requirement: "confirmed_when_ready",
        trials: 1,
        tasks: 1,
        example_task: "v56-w01-sub03",
        sentence: null,
      },
    ]);
  });

  it("is in the JSON report and a table of the terminal and Markdown reports", () => {
    const report = ReportSchema.parse(buildReport(records));
    expect(report.failed_requirements?.map((f) => f.requirement)).toEqual([
      "note_settled",
      "confirmed_when_ready",
    ]);
    const table = reportTables(report).find((t) => t.title.startsWith("Failed requirements"));
    expect(table?.rows[0]).toEqual(["note_settled", "3", "2", "v56-w01-sub02", "Move CN-12 to `settled`."]);
    const terminal = reportTables(report).map(renderTerminal).join("\n");
    expect(terminal).toMatch(/note_settled\s+3\s+2\s+v56-w01-sub02\s+Move CN-12 to `settled`\./);
    const markdown = reportMarkdown(report);
    expect(markdown).toContain("### Failed requirements (the first failure of failed trials)");
    expect(markdown).toContain("| note_settled | 3 | 2 | v56-w01-sub02 | Move CN-12 to `settled`. |");
    expect(markdown).toContain("| confirmed_when_ready | 1 | 1 | v56-w01-sub03 | — |");
  });

  it("leaves the table out when no failed trial names a requirement", () => {
    const report = buildReport(records.slice(4));
    expect(report.failed_requirements).toEqual([]);
    expect(reportTables(report).some((t) => t.title.startsWith("Failed requirements"))).toBe(false);
  });
});
