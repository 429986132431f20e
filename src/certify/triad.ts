import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { isRecordRef } from "../grade/final-state.js";
import type { TrialGrade } from "../grade/grade-schema.js";
import type { AgentFactory } from "../trial/agent.js";
import { resolveCanaries } from "../world/canary.js";
import type { ExchangeEvent } from "../world/event-log.js";
import {
  answerBindings,
  capturesOf,
  decoyVersion,
  isGradedSegment,
  isMintStep,
  isSendStep,
  playAndAnswer,
  playedName,
  renamePlaceholder,
  type SendStep,
  scripted,
  worldOf,
} from "./certify-kit.js";
import { type GateFailure, type GateReport, gateReport } from "./certify-schema.js";
import { goldenExchanges } from "./golden-edits.js";
import { graderCoverageFindings } from "./grader-coverage.js";
import { restOf } from "./native-rest.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

export const TRIAD_VERSION = "1.1.0";

/** One exam of the triad: an agent and whether the grader must pass it. */
export interface Exam {
  name: string;
  mustPass: boolean;
  agent: AgentFactory;
  /** What the exam plays, for the runner to share its trial with an identical one (`RunOptions.sameAs`). */
  sameAs?: string;
}

/**
 * The exams of a task's grader triad: the answer key (must pass), the blank exam and every
 * sabotaged exam that applies to the task (must fail). A sabotage is the golden run with one
 * load-bearing step broken:
 *
 * - `decoy_route@N` — golden step N sent to the decoy sibling of its route (deprecated/look-alike);
 * - `canary_without_call:FIELD` — the calls that produce FIELD's value (and every call to another
 *   route its data flow takes the value from) are skipped, yet the card is exactly right (every
 *   expected value typed in: canaries resolved for the trial, record references as the answer
 *   key's grade resolved them, see `expectedCard`);
 * - `store_skipped@N` — the golden's store step N is left out;
 * - `stale_token` — the minted token is never minted: the stale token in the vault is sent instead.
 *
 * `answerKey` is the grade of the answer key's trial (epoch 1): without it, a record reference
 * stays in the canary exam's card as the task writes it, a card that fails alone. `played` is the
 * exchange each golden step got in that trial (see `goldenExchanges`): two steps that sent one
 * request reveal the same value.
 *
 * @example const exams = triadExams(bank, task, golden.grade); // [{ name: "answer_key", mustPass: true, … }, …]
 */
export function triadExams(
  bank: Bank,
  task: Task,
  answerKey?: TrialGrade,
  played: ReadonlyArray<ExchangeEvent | undefined> = [],
): Exam[] {
  const world = worldOf(bank, task);
  const exams: Exam[] = [
    { name: "answer_key", mustPass: true, agent: goldenAgentFactory },
    { name: "blank", mustPass: false, agent: scripted(bank, "blank", async (s) => s.finish("")) },
  ];
  const sabotage = (name: string, steps: GoldenStep[], edit?: (t: string) => Record<string, JsonValue>) =>
    exams.push({
      name: `sabotage:${name}`,
      mustPass: false,
      agent: scripted(bank, `sabotage-${name}`, async (session, ctx) => {
        await playAndAnswer(session, task, steps, edit ? () => edit(ctx.trialSeed) : undefined);
      }),
      sameAs: playedName(steps, edit ? "expected card" : "golden card"),
    });

  task.golden.forEach((step, i) => {
    const decoy = decoyVersion(world, step);
    if (decoy)
      sabotage(
        `decoy_route@${i + 1}`,
        task.golden.map((s, j) => (j === i ? decoy : s)),
      );
  });

  const bindings = answerBindings(task);
  const stepIndex = new Map(task.golden.map((s, i) => [s, i]));
  for (const field of task.grader.answer) {
    if (!isGradedSegment(task, field.segment)) continue;
    const binding = bindings[field.field];
    const capturing = task.golden.filter((s) => binding !== undefined && capturesOf(s).includes(binding));
    if (capturing.length === 0) continue;
    // Every call that could reveal the value goes: the same request elsewhere in a chain reveals it
    // too, and so does any call to another route the grader takes the record's value from (a
    // listing a later segment walks).
    // Two steps written apart may send one request: each segment's walk of a cursor listing
    // follows its own cursor bindings to the same pages (kestrel-3's satellite chain).
    const samePlayed = (a: GoldenStep, b: GoldenStep) => {
      const x = played[stepIndex.get(a) as number];
      const y = played[stepIndex.get(b) as number];
      return x !== undefined && y !== undefined && x.method === y.method && x.url === y.url;
    };
    const sameCall = (a: GoldenStep, b: GoldenStep) =>
      isSendStep(a) && isSendStep(b) && (sameRequest(a, b) || samePlayed(a, b));
    const others = task.grader.g1.flatMap((p) =>
      p.kind === "data_flow" && p.answer_field === field.field && p.segment === field.segment
        ? (p.also_from ?? []).map((o) => new RegExp(o.url_pattern))
        : [],
    );
    // A GraphQL/MCP step serves it when the REST call it stands for does.
    const servesIt = (s: GoldenStep) => {
      const rest = restOf(world, s);
      return rest?.op === "execute" && others.some((re) => re.test(rest.request.url));
    };
    const producers = new Set(
      task.golden.filter((s) => capturing.some((c) => sameCall(c, s)) || servesIt(s)),
    );
    sabotage(
      `canary_without_call:${field.field}`,
      task.golden.filter((s) => !producers.has(s)),
      (seed) => expectedCard(task, seed, answerKey),
    );
  }

  // A selective chain grades only some segments: a store nothing graded reads is not load-bearing.
  const selective = task.kind === "chain" && task.grader.chain_mode === "selective";
  const gradedMustStore = task.grader.g1.some(
    (p) => p.kind === "data_flow" && p.must_be_stored && isGradedSegment(task, p.segment),
  );
  task.golden.forEach((step, i) => {
    if (step.op !== "store") return;
    const gradedByName = task.grader.g1.some(
      (p) => p.kind === "workspace_value" && p.name === step.name && isGradedSegment(task, p.segment),
    );
    if (selective && !gradedMustStore && !gradedByName) return;
    sabotage(
      `store_skipped@${i + 1}`,
      task.golden.filter((_, j) => j !== i),
    );
  });

  const stale = staleTokenSteps(task, world);
  if (stale) sabotage("stale_token", stale);
  return exams;
}

/**
 * The whole expected card for a trial seed: canaries resolved, and a record reference (known only
 * from the world's final records) as `answerKey`, the grade of the golden's trial at that seed,
 * resolved it. Without `answerKey`, or for a field it did not grade, the reference stays as written.
 *
 * @example expectedCard(task, golden.trial_seed, golden.grade) // { order_id: "MO-4KQ2", … }
 */
export function expectedCard(task: Task, seed: string, answerKey?: TrialGrade): Record<string, JsonValue> {
  const card: Record<string, JsonValue> = {};
  for (const f of task.grader.answer) {
    const resolved = isRecordRef(f.expected) ? answerKey?.g2.find((g) => g.field === f.field) : undefined;
    card[f.field] = resolved ? (resolved.expected as JsonValue) : resolveCanaries(f.expected, seed);
  }
  return card;
}

/**
 * The golden with every token mint removed (REST, GraphQL or MCP) and the minted token's
 * placeholder pointing at a stale token the task seeds in the vault; null when the task mints no
 * token or seeds no stale one.
 */
export function staleTokenSteps(task: Task, world: World): GoldenStep[] | null {
  const staleName = Object.entries(task.workspace.vault).find(
    ([, v]) => typeof v === "string" && v.startsWith(world.auth.token_prefix),
  )?.[0];
  const mints = task.golden.filter((s) => isMintStep(world, s));
  if (!staleName || mints.length === 0) return null;
  const minted = new Set(mints.flatMap(capturesOf));
  return task.golden
    .filter((s) => !mints.includes(s))
    .map((s) => [...minted].reduce((step, name) => renamePlaceholder(step, name, staleName), s));
}

/** The same request (method and URL for REST, the whole request for GraphQL/MCP). */
function sameRequest(a: SendStep, b: SendStep): boolean {
  if (a.op === "execute" && b.op === "execute")
    return a.request.method === b.request.method && a.request.url === b.request.url;
  return a.op === b.op && JSON.stringify(a.request) === JSON.stringify(b.request);
}

/**
 * Gate 1, the grader triad: per task, the answer key passes, the blank exam and every sabotaged
 * exam fail. A grader that passes the blank or a sabotage is not load-bearing.
 *
 * @example const report = await triadGate(bank, bank.tasks); report.failed === 0
 */
export async function triadGate(
  bank: Bank,
  tasks: readonly Task[],
  runner: TrialRunner = sharedTrials(bank),
): Promise<GateReport> {
  const failures: GateFailure[] = [];
  for (const task of tasks) {
    failures.push(...(await triadFindings(bank, task, runner)));
    runner.release(task);
  }
  return gateReport(
    TRIAD_VERSION,
    tasks.map((t) => t.id),
    failures,
  );
}

/**
 * The triad's failures on one task (none when its grader is load-bearing).
 *
 * @example await triadFindings(bank, task, sharedTrials(bank)) // []
 */
export async function triadFindings(bank: Bank, task: Task, runner: TrialRunner): Promise<GateFailure[]> {
  // A grader must first hold, by its form, what the ticket demands (see grader-coverage.ts).
  const failures: GateFailure[] = graderCoverageFindings(task);
  // The answer key first: the canary exams type in the record references its grade resolved.
  const answerKey = await runner.run(task, goldenAgentFactory, 1);
  for (const exam of triadExams(bank, task, answerKey.grade, goldenExchanges(task, answerKey.events))) {
    // Only the verdict is read, and a must-fail exam may stop at its first forbidden call.
    const r =
      exam.agent === goldenAgentFactory
        ? answerKey
        : await runner.run(task, exam.agent, 1, {
            failFast: !exam.mustPass,
            ...(exam.sameAs !== undefined ? { sameAs: exam.sameAs } : {}),
          });
    if (r.grade.passed === exam.mustPass) continue;
    failures.push({
      task_id: task.id,
      check: exam.name,
      message: exam.mustPass
        ? `the answer key fails its own grader: ${r.grade.failure_reason || r.stop_detail}`
        : `${exam.name === "blank" ? "the blank exam" : `sabotaged exam ${exam.name}`} passes: the grader is not load-bearing`,
    });
  }
  return failures;
}
