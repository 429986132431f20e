import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { TrialGrade } from "../grade/grade-schema.js";
import { playAndAnswer, scripted, worldOf } from "./certify-kit.js";
import type { GateFailure } from "./certify-schema.js";
import { goldenExchanges, goldenStatuses } from "./golden-edits.js";
import { type GoldenMutant, goldenMutants, mutatedRequirements } from "./golden-mutants.js";
import { legitimateVariants, runVariant } from "./legitimate-variants.js";
import type { TrialRunner } from "./trial-tree.js";

export const REQUIREMENT_MUTANTS_VERSION = "1.2.0";
export const LEGITIMATE_VARIANTS_VERSION = "1.0.0";

/** Mutants of a task: how many were generated and how many the grader killed. */
export interface MutantCount {
  generated: number;
  killed: number;
}

/**
 * The ids a failing grade names: failed G1 predicates (and the requirements they hold), failed
 * card fields as `answer:<field>`, violated constraints. A result of a chain segment is named
 * `<id>@<segment>` (a chain states each requirement once per segment, under one id).
 */
export function failedNames(grade: TrialGrade): Set<string> {
  const out = new Set<string>();
  const add = (name: string, segment: number | undefined) =>
    out.add(segment === undefined ? name : `${name}@${segment}`);
  for (const r of grade.g1) {
    if (r.passed || r.not_evaluated) continue;
    add(r.id, r.segment);
    if (r.requirement) add(r.requirement, r.segment);
  }
  for (const f of grade.g2) if (!f.passed) out.add(`answer:${f.field}`);
  // A chain's segments share its constraints: a violation names them whatever its segment.
  for (const c of grade.constraints) {
    if (!c.violated) continue;
    out.add(c.id);
    if (c.requirement) out.add(c.requirement);
  }
  return out;
}

/**
 * Whether a grade kills a mutant: the trial fails and, for a mutant derived from a requirement,
 * the failure names that requirement (one of the predicates, card fields or constraints holding
 * it fails, or a failed predicate says it holds it) — in the mutant's chain segment, when it has one.
 */
export function kills(grade: TrialGrade, mutant: GoldenMutant): boolean {
  if (grade.passed) return false;
  if (!mutant.requirement) return true;
  const failed = failedNames(grade);
  const named = (n: string) =>
    mutant.segment !== undefined
      ? failed.has(`${n}@${mutant.segment}`) || failed.has(n)
      : failed.has(n) || [...failed].some((f) => f.startsWith(`${n}@`));
  return named(mutant.requirement) || (mutant.names ?? []).some(named);
}

/**
 * Gate 5, requirement mutants: per task, every mutant of its golden (see `goldenMutants`) must
 * fail its grader, naming the requirement it breaks. Each surviving mutant is a failure
 * `survived:<operator>`; the counts give the bank's mutation score.
 *
 * @example const { failures, count } = await requirementMutantFindings(bank, task, sharedTrials(bank));
 */
export async function requirementMutantFindings(
  bank: Bank,
  task: Task,
  runner: TrialRunner,
): Promise<{ failures: GateFailure[]; count: MutantCount }> {
  const world = worldOf(bank, task);
  const failures: GateFailure[] = [];
  const exchanges = goldenExchanges(task, (await runner.run(task, goldenAgentFactory)).events);
  const mutants = goldenMutants(
    world,
    task,
    exchanges.map((e) => e?.status),
    exchanges,
  );
  // A requirement no mutant can break is one the gate cannot show is held.
  for (const r of mutatedRequirements(task)) {
    if (mutants.some((m) => m.requirement === r.id && m.segment === r.segment)) continue;
    const where = r.segment === undefined ? "" : ` of segment ${r.segment}`;
    failures.push({
      task_id: task.id,
      check: `no_mutant:${r.kind}`,
      message: `requirement ${r.id}${where} (${r.kind}) offers no golden step to break: the gate cannot show it is held`,
    });
  }
  let killed = 0;
  for (const mutant of mutants) {
    const agent = scripted(bank, `mutant-${mutant.name}`, async (session, ctx) => {
      await playAndAnswer(session, task, mutant.steps(ctx.trialSeed), mutant.card);
    });
    const r = await runner.run(task, agent);
    if (kills(r.grade, mutant)) {
      killed += 1;
      continue;
    }
    const what = mutant.requirement
      ? `requirement ${mutant.requirement}`
      : `golden step ${mutant.step} (${describeGoldenStep(task, mutant.step)})`;
    failures.push({
      task_id: task.id,
      check: `survived:${mutant.operator}`,
      message: r.grade.passed
        ? `mutant ${mutant.name} passes: the grader does not hold ${what}`
        : `mutant ${mutant.name} fails without naming ${what}: ${r.grade.failure_reason}`,
    });
  }
  return { failures, count: { generated: mutants.length, killed } };
}

/**
 * Gate 6, legitimate variants: per task, every variant a careful agent may produce (see
 * `legitimateVariants`) must pass its grader. Each one that fails is a failure
 * `false_fail:<kind>` with the grader's reason.
 *
 * @example await legitimateVariantFindings(bank, task, sharedTrials(bank)) // []
 */
export async function legitimateVariantFindings(
  bank: Bank,
  task: Task,
  runner: TrialRunner,
): Promise<GateFailure[]> {
  const world = worldOf(bank, task);
  const failures: GateFailure[] = [];
  for (const variant of legitimateVariants(world, task, await statusesOf(task, runner))) {
    const r = await runVariant(bank, task, variant, runner);
    if (r.grade.passed) continue;
    failures.push({
      task_id: task.id,
      check: `false_fail:${variant.kind}`,
      message: `legitimate variant ${variant.name} fails: ${r.grade.failure_reason || r.stop_detail}`,
    });
  }
  return failures;
}

/** The status of each golden step in the golden run (the runner's shared answer-key trial). */
async function statusesOf(task: Task, runner: TrialRunner): Promise<Array<number | undefined>> {
  return goldenStatuses(task, (await runner.run(task, goldenAgentFactory)).events);
}

/** A golden step in a few words, for failure messages: `PATCH /v3/credit-notes/{{p2_wid}}`. */
function describeGoldenStep(task: Task, step: number): string {
  const s = task.golden[step - 1];
  if (!s) return "?";
  if (s.op === "execute") return `${s.request.method} ${s.request.url}`;
  if (s.op === "store") return `store ${s.name}`;
  return s.op;
}
