import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { Axis, GoldenStep, Task } from "../bank/task-schema.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { convertStep } from "../world/protocol-step.js";
import { blindSegment, renameStep } from "./axis-blind.js";
import { chainSegments, isSendStep, playAndAnswer, scripted, worldOf } from "./certify-kit.js";
import type { GateFailure } from "./certify-schema.js";
import { refusedVerbCall, restOf } from "./native-rest.js";
import type { TrialRunner } from "./trial-tree.js";

export const AXIS_NECESSITY_VERSION = "2.2.0";

/**
 * Whether `axis_necessity` failures fail certification (`ok`, and the regeneration loop's drops).
 * Hard since every task of the default bank demands its axis (issue 16 item 1).
 */
export const AXIS_NECESSITY_HARD = true;

/** The axis of each segment of `task` (a chain's segment k is the solo subtask at its position). */
function segmentAxes(bank: Bank, task: Task): Axis[] {
  if (task.kind === "solo") return [task.axes[0] as Axis];
  return task.positions.map((p) => {
    const solo = bank.tasks.find((t) => t.kind === "solo" && t.world === task.world && t.positions[0] === p);
    return (solo?.axes[0] ?? task.axes[0]) as Axis;
  });
}

/** The `call` premises of the solo subtask at `position` (what its ticket quotes). */
function premisesAt(bank: Bank, task: Task, position: number) {
  if (task.kind === "solo") return task.premises ?? [];
  return (
    bank.tasks.find((t) => t.kind === "solo" && t.world === task.world && t.positions[0] === position)
      ?.premises ?? []
  );
}

/**
 * The axis-blind variant of a task's golden: each segment rewritten by `blindSegment` for its own
 * axis (a chain's every segment at once), with what the blind agent did differently; `what` is
 * empty when the variant is the golden itself. `seen` is the golden run's exchange per send step.
 *
 * @example axisBlindVariant(bank, task, seen).what // ["one page of /v3/vessels at per_page=100"]
 */
export function axisBlindVariant(
  bank: Bank,
  task: Task,
  seen: ReadonlyMap<number, ExchangeEvent>,
  sendable: (steps: readonly GoldenStep[]) => string | null = () => null,
  rereadOnly = false,
): { success: true; steps: GoldenStep[]; what: string[] } | { success: false; error: string } {
  const world = worldOf(bank, task);
  const split = task.kind === "chain" ? chainSegments(task) : null;
  if (split && !split.success) return { success: false, error: split.error };
  const answerAt = task.golden.findIndex((s) => s.op === "answer");
  const segments = split?.success
    ? split.data
    : [
        {
          position: task.positions[0] as number,
          start: 0,
          end: answerAt < 0 ? task.golden.length : answerAt,
        },
      ];
  const axes = segmentAxes(bank, task);
  const steps = [...task.golden];
  const what: string[] = [];
  // Last segment first: the steps before a segment keep their golden indexes (and exchanges).
  for (let k = segments.length - 1; k >= 0; k--) {
    const seg = segments[k] as { position: number; start: number; end: number };
    const axis = axes[k] as Axis;
    const ctx = {
      world,
      steps,
      seen,
      premises: premisesAt(bank, task, seg.position),
      vault: task.workspace.vault,
      rereadOnly,
    };
    const blind = blindSegment(axis, ctx, seg.start, seg.end);
    // A chain segment whose blind calls the world's protocol cannot carry (a wrong verb in
    // GraphQL/MCP) stays as the golden played it: the other segments are still blinded. A solo
    // task keeps it, and the gate reports the call it cannot make.
    const unsent = split ? sendable(blind.steps) : null;
    if (unsent) {
      what.unshift(`segment ${seg.position} (${axis}) not blinded: ${unsent}`);
      continue;
    }
    const after = steps.slice(seg.end).map((s) => renameStep(s, blind.renames));
    steps.splice(seg.start, steps.length - seg.start, ...blind.steps, ...after);
    what.unshift(...blind.what.map((w) => (split ? `segment ${seg.position} (${axis}): ${w}` : w)));
  }
  return { success: true, steps, what };
}

/**
 * Gate `axis_necessity` on one task: the golden played blind to the task's axis (a chain: every
 * segment blind to its own) must fail the grader. A variant that cannot differ from the golden
 * (no listing to cut short, no re-mint to skip, no quoted call to send as the client did…) is a
 * failure too: the task does not make its axis necessary.
 *
 * @example await axisNecessityFindings(bank, task, sharedTrials(bank)) // [] when the blind agent fails
 */
export async function axisNecessityFindings(
  bank: Bank,
  task: Task,
  runner: TrialRunner,
): Promise<{ failures: GateFailure[] }> {
  const axes = [...new Set(segmentAxes(bank, task))].join("+");
  const fail = (check: string, message: string) => ({
    failures: [{ task_id: task.id, check: `axis_blind:${check}`, message }],
  });
  // A GraphQL/MCP golden is blinded as the REST golden it was converted from, then converted back.
  const world = worldOf(bank, task);
  const protocol = world.protocol ?? "rest";
  const restGolden = protocol === "rest" ? task.golden : task.golden.map((s) => restOf(world, s));
  if (restGolden.some((s) => s === null))
    return fail("unmapped", `a ${protocol} golden step has no REST form to blind`);
  const golden = await runner.run(task, goldenAgentFactory);
  // A golden that fails is the triad's finding, not this gate's.
  if (!golden.grade.passed) return { failures: [] };
  const exchanges = golden.events.filter((e): e is ExchangeEvent => e.type === "exchange");
  const sendAt = task.golden.flatMap((s, i) => (isSendStep(s) ? [i] : []));
  if (exchanges.length !== sendAt.length)
    return fail("unmapped", `the golden's ${sendAt.length} calls produced ${exchanges.length} exchanges`);
  const seen = new Map(sendAt.map((i, n) => [i, exchanges[n] as ExchangeEvent]));
  // The blind agent's wrong verb (the client's quoted call) goes out as the operation a client
  // copying it would name, which the variant refuses as REST answers 405 (see `refusedVerbCall`).
  const toNative = (steps: readonly GoldenStep[]) =>
    protocol === "rest"
      ? [...steps]
      : steps.map((s, i) => {
          const native = convertStep(world, protocol, s, `axis-blind step ${i}`);
          return typeof native === "string" ? (refusedVerbCall(world, protocol, s) ?? native) : native;
        });
  const variant = axisBlindVariant(
    bank,
    { ...task, golden: restGolden as GoldenStep[] },
    seen,
    (steps) => toNative(steps).find((s): s is string => typeof s === "string") ?? null,
  );
  if (!variant.success) return fail("unsplit", variant.error);
  if (variant.what.length === 0)
    return fail(
      axes,
      `an agent blind to ${axes} plays the golden unchanged: the task does not need the skill`,
    );
  let steps = variant.steps;
  if (protocol !== "rest") {
    const native = toNative(steps);
    const unsent = native.find((s): s is string => typeof s === "string");
    // The blind agent's call (a wrong verb, a route the protocol does not serve) cannot be made
    // here: the protocol itself spares the agent the skill.
    if (unsent)
      return fail(
        axes,
        `an agent blind to ${axes} cannot make its call in ${protocol} (${unsent}): the variant does not demand the skill`,
      );
    steps = native as GoldenStep[];
  }
  const agent = scripted(bank, `axis-blind-${axes}`, async (session) => {
    await playAndAnswer(session, task, steps);
  });
  // Only the verdict is read (a fail is this gate's pass): the trial may stop at a forbidden call
  // and is graded verdict-only (`RunOptions.failFast`: the same pass or fail).
  const r = await runner.run(task, agent, 1, { failFast: true });
  if (r.grade.passed) return fail(axes, `an agent blind to ${axes} passes (${variant.what.join("; ")})`);
  // A statefulness task that also keeps values fails the blind agent by its stores alone: the
  // re-reads it asks for must be needed on their own ("then read it again").
  if (!segmentAxes(bank, task).includes("statefulness")) return { failures: [] };
  const reread = axisBlindVariant(
    bank,
    { ...task, golden: restGolden as GoldenStep[] },
    seen,
    (s) => toNative(s).find((x): x is string => typeof x === "string") ?? null,
    true,
  );
  if (!reread.success || reread.what.length === 0) return { failures: [] };
  const native = toNative(reread.steps);
  if (native.some((s) => typeof s === "string")) return { failures: [] };
  const rereader = scripted(bank, "axis-blind-reread", async (session) => {
    await playAndAnswer(session, task, native as GoldenStep[]);
  });
  const rr = await runner.run(task, rereader, 1, { failFast: true });
  if (!rr.grade.passed) return { failures: [] };
  return fail(
    "statefulness",
    `an agent that re-reads nothing (its values kept) passes (${reread.what.join("; ")}): the re-read is not needed`,
  );
}
