import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedRunInTempDir } from "../../../test/support/scripted-run.js";
import { blankAgentFactory } from "../../agents/scripted-agents.js";
import { bankFromContent } from "../../bank/bank.js";
import { defaultBankContent } from "../../generate/default-bank.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";
import { formatTrialLine } from "./run.js";

// Issue 15 item 6: a trial's stored failure reason, the terminal line of `apiflow run`, the chain's
// failure stage in the transcript and `apiflow report` name the requirement that failed, with the
// ticket's sentence.

const content = defaultBankContent();
/** A solo task whose first G1 predicate holds a requirement the ticket states in a sentence. */
const solo = content.tasks.find((t) => {
  const first = t.grader.g1[0]?.requirement;
  return t.kind === "solo" && (t.requirements ?? []).some((r) => r.id === first && r.sentence);
});
const chain = content.tasks.find((t) => t.kind === "chain" && (t.requirements ?? []).some((r) => r.sentence));

describe("a failed requirement named wherever a trial's failure is shown", () => {
  it("the tasks this test needs exist in the default bank", () => {
    expect(solo).toBeDefined();
    expect(chain).toBeDefined();
  });

  it("store, terminal line, transcript and report", async () => {
    if (!solo || !chain) throw new Error("no task with requirement sentences");
    const bank = bankFromContent({ ...content, tasks: [solo, chain] });
    const { runDir, records } = await scriptedRunInTempDir(bank, [blankAgentFactory]);
    const soloRec = records.find((r) => r.task_id === solo.id);
    const held = solo.requirements?.find((r) => r.id === solo.grader.g1[0]?.requirement);
    const words = `(requirement ${held?.id}: “${held?.sentence}”)`;
    expect(soloRec?.failure_reason).toContain(words);
    expect(formatTrialLine(soloRec as NonNullable<typeof soloRec>)).toContain(words);

    const chainRec = records.find((r) => r.task_id === chain.id);
    const transcript = JSON.parse(readFileSync(join(runDir, chainRec?.transcript as string), "utf8"));
    const diagnostics = transcript.verifier.metadata.sub_predicates.segment_diagnostics;
    expect(diagnostics.failure_stage).toBeGreaterThan(0);
    const named = diagnostics.failure_requirement as { id: string; sentence?: string };
    const stated = chain.requirements?.find(
      (r) => r.id === named.id && r.segment === diagnostics.failure_stage,
    );
    expect(stated).toBeDefined();
    expect(named.sentence).toBe(stated?.sentence);
    expect(diagnostics.per_segment[String(diagnostics.failure_stage)].failed_requirements[0]).toBe(named.id);

    const io = bufferIo({}, runDir);
    expect(await runCli(["report", "."], io)).toBe(0);
    expect(io.out()).toContain("Failed requirements (the first failure of failed trials)");
    expect(io.out()).toContain(held?.sentence as string);
  }, 120_000);
});
