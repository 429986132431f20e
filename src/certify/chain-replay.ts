import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { TrialResult } from "../run/run-trial.js";
import {
  capturesOf,
  chainSegments,
  decoyVersion,
  isGradedSegment,
  placeholdersOf,
  playAndAnswer,
  playedName,
  renamePlaceholder,
  scripted,
  worldOf,
} from "./certify-kit.js";
import { type GateFailure, type GateReport, gateReport } from "./certify-schema.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

export const CHAIN_REPLAY_VERSION = "1.0.0";

/** A negative replay: the chain's golden with one dependency broken; the grader must fail it. */
export interface NegativeReplay {
  name: string;
  steps: GoldenStep[];
  /** Set when a later segment itself (not only the skipped one) must fail: it consumes this one. */
  laterMustFail?: number;
}

type Segment = { position: number; start: number; end: number };

/**
 * The negative replays of a chain, given its segments:
 *
 * - `skip_segment:K` — segment K's steps are left out, the rest replayed (values K would have
 *   produced are missing). In a selective chain only graded segments are skipped, and a consumed
 *   segment's skip must also fail a later segment: the later work depends on it.
 * - `wrong_segment_value:K` — the first request of segment K that sends a captured value in its URL
 *   or body sends a value captured in another segment instead.
 * - `decoy@N` — golden step N goes to its route's decoy sibling.
 *
 * @example negativeReplays(bank, chain, segments).map((r) => r.name) // ["skip_segment:1", …]
 */
export function negativeReplays(bank: Bank, task: Task, segments: readonly Segment[]): NegativeReplay[] {
  const world = worldOf(bank, task);
  const replays: NegativeReplay[] = [];
  const selective = task.grader.chain_mode === "selective" && task.graded_segments !== undefined;
  const last = segments[segments.length - 1];
  for (const seg of segments) {
    if (seg === last || !isGradedSegment(task, seg.position)) continue;
    replays.push({
      name: `skip_segment:${seg.position}`,
      steps: task.golden.filter((_, i) => i < seg.start || i >= seg.end),
      ...(selective ? { laterMustFail: seg.position } : {}),
    });
  }

  const segmentAt = (i: number) => segments.find((s) => i >= s.start && i < s.end);
  const captures = (i: number) => capturesOf(task.golden[i]);
  for (const seg of segments.slice(1)) {
    if (!isGradedSegment(task, seg.position)) continue;
    const swap = findWrongSegmentSwap(task, seg, segmentAt, captures);
    if (!swap) continue;
    replays.push({
      name: `wrong_segment_value:${seg.position}`,
      steps: task.golden.map((s, i) => (i === swap.index ? renamePlaceholder(s, swap.from, swap.to) : s)),
    });
  }

  task.golden.forEach((step, i) => {
    const seg = segmentAt(i);
    const decoy = decoyVersion(world, step);
    if (decoy && seg && isGradedSegment(task, seg.position))
      replays.push({ name: `decoy@${i + 1}`, steps: task.golden.map((s, j) => (j === i ? decoy : s)) });
  });
  return replays;
}

function findWrongSegmentSwap(
  task: Task,
  seg: Segment,
  segmentAt: (i: number) => Segment | undefined,
  captures: (i: number) => string[],
): { index: number; from: string; to: string } | null {
  // Only values sent in URLs or bodies: swapping a shared credential would test the token (the
  // triad's stale-token exam does), not which segment a value came from.
  for (let i = seg.start; i < seg.end; i++) {
    const p = placeholdersOf(task.golden[i] as GoldenStep);
    for (const name of [...p.url, ...p.body]) {
      let origin: Segment | undefined;
      for (let j = i - 1; j >= 0 && !origin; j--) if (captures(j).includes(name)) origin = segmentAt(j);
      if (!origin) continue; // a vault value, not a captured one
      for (let j = i - 1; j >= 0; j--) {
        const other = segmentAt(j);
        if (!other || other === origin) continue;
        const to = captures(j).find((c) => c !== name);
        if (to) return { index: i, from: name, to };
      }
    }
  }
  return null;
}

/**
 * Gate 5, chain replays: per chain, the golden replay passes and every negative replay fails.
 * Full-mode chains whose skipped segments never break a later one get a note (the coupling is
 * nominal: each segment redoes what it needs), not a failure — full mode grades every segment's
 * own work, so skipping any of them fails the chain.
 *
 * @example (await chainReplayGate(bank, bank.tasks.filter((t) => t.kind === "chain"))).failed
 */
export async function chainReplayGate(
  bank: Bank,
  tasks: readonly Task[],
  runner: TrialRunner = sharedTrials(bank),
): Promise<GateReport> {
  const chains = tasks.filter((t) => t.kind === "chain");
  const failures: GateFailure[] = [];
  const notes: string[] = [];
  for (const task of chains) {
    const found = await chainReplayFindings(bank, task, runner);
    failures.push(...found.failures);
    notes.push(...found.notes);
    runner.release(task);
  }
  return gateReport(
    CHAIN_REPLAY_VERSION,
    chains.map((t) => t.id),
    failures,
    { notes },
  );
}

/**
 * Chain replays of one task (nothing for a solo task): its failures and notes.
 *
 * @example await chainReplayFindings(bank, chain, sharedTrials(bank)) // { failures: [], notes: [] }
 */
export async function chainReplayFindings(
  bank: Bank,
  task: Task,
  runner: TrialRunner,
): Promise<{ failures: GateFailure[]; notes: string[] }> {
  const failures: GateFailure[] = [];
  const notes: string[] = [];
  if (task.kind !== "chain") return { failures, notes };
  const fail = (check: string, message: string) => failures.push({ task_id: task.id, check, message });
  const golden = await runner.run(task, goldenAgentFactory);
  if (!golden.grade.passed) fail("golden_replay", `golden replay fails: ${golden.grade.failure_reason}`);
  const segments = chainSegments(task);
  if (!segments.success) {
    fail("segments", segments.error);
    return { failures, notes };
  }
  let anyLaterBroken = false;
  // Whether the report may note this chain's coupling as nominal (see below).
  const mayNote = task.coupling !== "none" && task.grader.chain_mode !== "selective";
  for (const replay of negativeReplays(bank, task, segments.data)) {
    const agent = scripted(bank, `replay-${replay.name}`, async (session) => {
      await playAndAnswer(session, task, replay.steps);
    });
    const skipped = replay.name.startsWith("skip_segment:") ? Number(replay.name.split(":")[1]) : null;
    // A skip's later segments are read only where they can still change the findings: a selective
    // chain's skip must break a later segment (`laterMustFail`), and a chain that may get the
    // nominal-coupling note needs one skip that breaks a later segment (after it, none is read).
    // Otherwise, as of the other replays, only the verdict is read: the trial is graded verdict-only
    // (the same pass or fail, see `RunOptions.failFast`), without per-segment results.
    const readLater: boolean =
      skipped !== null && (replay.laterMustFail !== undefined || (mayNote && !anyLaterBroken));
    const r = await runner.run(task, agent, 1, {
      failFast: !readLater,
      sameAs: playedName(replay.steps, "golden card"),
    });
    const laterFailed: boolean = readLater && skipped !== null && laterSegmentFailed(r, skipped);
    anyLaterBroken ||= laterFailed;
    if (r.grade.passed)
      fail(replay.name, `negative replay ${replay.name} passes: the chain does not depend on it`);
    else if (replay.laterMustFail !== undefined && !laterFailed)
      fail(
        replay.name,
        `with segment ${replay.laterMustFail} skipped every later graded segment still passes: the later segments do not depend on it`,
      );
  }
  if (mayNote && !anyLaterBroken)
    notes.push(
      `${task.id}: coupling "${task.coupling}" is nominal — skipping any earlier segment leaves every later segment passing (full mode still fails the skip)`,
    );
  return { failures, notes };
}

function laterSegmentFailed(r: TrialResult, skipped: number): boolean {
  const per = r.grade.segments?.per_segment ?? {};
  return Object.entries(per).some(([s, res]) => Number(s) > skipped && !(res.g1_passed && res.g2_passed));
}
