import type { JsonValue } from "../bank/json.js";
import type { Premise } from "../bank/premise-schema.js";
import type { G1Predicate, GoldenStep, GraderSpec, Requirement, Subtask, Task } from "../bank/task-schema.js";
import type { Probe } from "./story-state.js";

/** The answer-card instruction every ticket ends with (the wording of the 1.0 tickets). */
export function answerCardInstruction(fields: readonly string[]): string {
  return `When you have finished, report your final answer as a single JSON object inside a \`\`\`json code block, with exactly these field(s): ${fields.map((f) => `\`${f}\``).join(", ")}. Use the exact field name(s) shown, and put each requested value as that field's value — ONE value per field (a single scalar; if your work touched several items, report only the final/target value for each field, never a list or per-item map).`;
}

const withoutAnswers = (steps: readonly GoldenStep[]) => steps.filter((s) => s.op !== "answer");

export const soloTaskId = (world: string, position: number) =>
  `${world}-sub${String(position).padStart(2, "0")}`;
export const chainTaskId = (world: string, length: number) =>
  `${world}-chain-1to${String(length).padStart(2, "0")}`;

/**
 * A solo task: subtask k on its own, with the world state the storyline left before k (the golden
 * solutions of 1..k-1 replayed as setup).
 */
export function composeSolo(
  worldId: string,
  storyline: readonly Subtask[],
  k: number,
  workspace: Task["workspace"],
): Task {
  const sub: (Subtask & { coupling?: Task["coupling"] }) | undefined = storyline[k - 1];
  if (!sub) throw new Error(`no subtask at position ${k}`);
  return {
    id: soloTaskId(worldId, k),
    world: worldId,
    kind: "solo",
    positions: [k],
    axes: [sub.axis],
    difficulty: sub.difficulty,
    coupling: sub.coupling ?? (sub.consumes.length > 0 ? "value" : "none"),
    ticket: `${sub.ticket}\n\n${answerCardInstruction(sub.grader.answer.map((f) => f.field))}`,
    workspace,
    setup: storyline.slice(0, k - 1).flatMap((s) => withoutAnswers(s.golden)),
    golden: sub.golden,
    grader: sub.grader,
    ...premisesOf(sub),
    ...(sub.requirements ? { requirements: sub.requirements } : {}),
    ...(sub.story ? { story: sub.story } : {}),
  };
}

/** The premises a generated subtask's ticket claims: its quoted broken calls and what else it declares. */
function premisesOf(sub: Subtask & { probes?: readonly Probe[]; premises?: readonly Premise[] }): {
  premises?: Premise[];
} {
  const premises: Premise[] = [
    ...(sub.probes ?? []).map(
      (p): Premise => ({
        kind: "call",
        ...(p as Omit<Probe, "body">),
        ...(p.body ? { body: p.body as Record<string, JsonValue> } : {}),
      }),
    ),
    ...(sub.premises ?? []),
  ];
  return premises.length > 0 ? { premises } : {};
}

/**
 * The claims a chain's steps make about world state it must be seeded with: each segment's signer
 * nonce counter, tagged with its segment. A segment's quoted calls and spec claims are its solo
 * task's, checked there on the same storyline state.
 */
function chainPremises(subs: readonly Subtask[]): { premises?: Premise[] } {
  const premises = subs.flatMap((s) =>
    ((s as Subtask & { premises?: readonly Premise[] }).premises ?? []).flatMap((p) =>
      p.kind === "nonce_counter" ? [{ ...p, segment: s.position }] : [],
    ),
  );
  return premises.length > 0 ? { premises } : {};
}

/**
 * A chain `1toN`: subtasks 1..N in one session on one evolving world. The answer card holds the
 * fields of every segment; predicates carry their segment. In `selective` mode the grader gates on
 * the final segment and the segments later ones consume.
 */
export function composeChain(
  worldId: string,
  storyline: readonly Subtask[],
  n: number,
  workspace: Task["workspace"],
  options: {
    mode: "selective" | "full";
    intro: string;
    steps: readonly string[];
    /** The story parts of the intro and the steps (see `TaskSchema.story`). */
    story?: readonly string[];
    /** Requirements of the whole chain (no segment), stated in the introduction. */
    requirements?: readonly Requirement[];
  },
): Task {
  if (storyline.length < n) throw new Error(`storyline has fewer than ${n} subtasks`);
  const { subs, steps } = renameCollidingFields(storyline.slice(0, n), options.steps.slice(0, n));
  const tag = <T extends { segment?: number }>(items: readonly T[], segment: number) =>
    items.map((i) => ({ ...i, segment: i.segment ?? segment }));
  const answer = subs.flatMap((s) => tag(s.grader.answer, s.position));
  const constraints = new Map<string, GraderSpec["constraints"][number]>();
  for (const s of subs)
    for (const c of s.grader.constraints)
      if (!constraints.has(c.id)) constraints.set(c.id, { ...c, segment: c.segment ?? s.position });
  const grader: GraderSpec = {
    answer,
    g1: subs.flatMap((s) => tag(s.grader.g1.map(withoutSharedUses), s.position)),
    constraints: [...constraints.values()],
    checkpoints: subs.flatMap((s) => tag(s.grader.checkpoints, s.position)),
    chain_mode: options.mode,
  };
  const consumed = new Set(subs.flatMap((s) => s.consumes));
  const graded = [...new Set([n, ...[...consumed].filter((p) => p <= n)])].sort((a, b) => a - b);
  const fields = answer.map((f) => f.field);
  const lastAnswer: GoldenStep = {
    op: "answer",
    fields: Object.assign(
      {},
      ...subs.map(
        (s) =>
          (s.golden.find((g) => g.op === "answer") as { fields: Record<string, string> } | undefined)
            ?.fields ?? {},
      ),
    ),
  };
  const order = steps.map((text, i) => `${i + 1}. ${text}`);
  return {
    id: chainTaskId(worldId, n),
    world: worldId,
    kind: "chain",
    positions: subs.map((s) => s.position),
    axes: [...new Set(subs.map((s) => s.axis))],
    difficulty: subs.some((s) => s.difficulty === "hard")
      ? "hard"
      : subs.some((s) => s.difficulty === "medium")
        ? "medium"
        : "easy",
    coupling: consumed.size > 0 ? "value" : "none",
    ticket: `${options.intro}\n\n${order.join("\n")}\n\n${answerCardInstruction(fields)}`,
    workspace,
    setup: [],
    golden: [
      ...subs.flatMap(
        (s) => (s as Subtask & { chainGolden?: GoldenStep[] }).chainGolden ?? withoutAnswers(s.golden),
      ),
      lastAnswer,
    ],
    grader,
    ...(options.mode === "selective" ? { graded_segments: graded } : {}),
    ...chainPremises(subs),
    ...(options.story ? { story: [...options.story] } : {}),
    ...(subs.some((s) => s.requirements)
      ? {
          requirements: [
            ...subs.flatMap((s) => tag(s.requirements ?? [], s.position)),
            ...(options.requirements ?? []),
          ],
        }
      : {}),
  };
}

/**
 * A chain's card holds every segment's fields, so a field name an earlier segment already uses is
 * suffixed with the segment's position (`status` → `status_7`) in its grader, its golden answer
 * and the "report …" clause of its step text.
 */
function renameCollidingFields(
  subs: readonly Subtask[],
  steps: readonly string[],
): { subs: Subtask[]; steps: string[] } {
  const used = new Set<string>();
  const outSubs: Subtask[] = [];
  const outSteps: string[] = [];
  subs.forEach((s, i) => {
    const rename = new Map<string, string>();
    for (const f of s.grader.answer) {
      let name = f.field;
      if (used.has(name)) name = `${f.field}_${s.position}`;
      used.add(name);
      if (name !== f.field) rename.set(f.field, name);
    }
    let step = steps[i] ?? "";
    if (rename.size === 0) {
      outSubs.push(s);
      outSteps.push(step);
      return;
    }
    const to = (f: string) => rename.get(f) ?? f;
    const renamed = (text: string) => {
      let out = text;
      for (const [from, target] of rename) out = out.replaceAll(`\`${from}\``, `\`${target}\``);
      return out;
    };
    // A step stated from requirements names the fields in its report requirement's brief: that
    // brief is renamed, in the requirement and in the step. Otherwise the "report …" clause is.
    const reports = (s.requirements ?? []).filter(
      (r) => r.kind === "report" && step.includes(r.brief ?? r.sentence ?? "\0"),
    );
    for (const r of reports) {
      const said = (r.brief ?? r.sentence) as string;
      step = step.replace(said, renamed(said));
    }
    const cut = step.lastIndexOf("report");
    if (reports.length === 0 && cut >= 0) step = step.slice(0, cut) + renamed(step.slice(cut));
    outSteps.push(step);
    outSubs.push({
      ...s,
      golden: s.golden.map((g) =>
        g.op === "answer"
          ? { ...g, fields: Object.fromEntries(Object.entries(g.fields).map(([f, b]) => [to(f), b])) }
          : g,
      ),
      grader: {
        ...s.grader,
        answer: s.grader.answer.map((f) => ({ ...f, field: to(f.field) })),
        g1: s.grader.g1.map((p) =>
          p.kind === "data_flow" && p.answer_field !== undefined
            ? { ...p, answer_field: to(p.answer_field) }
            : p,
        ),
      },
      ...(s.requirements
        ? {
            requirements: s.requirements.map((r) => ({
              ...r,
              predicates: r.predicates.map((p) => (p.startsWith("answer:") ? `answer:${to(p.slice(7))}` : p)),
              ...(r.kind === "report"
                ? {
                    fields: r.fields.map(to),
                    ...(r.brief !== undefined ? { brief: renamed(r.brief) } : {}),
                    ...(r.brief === undefined && r.sentence !== undefined
                      ? { sentence: renamed(r.sentence) }
                      : {}),
                  }
                : {}),
            })) as Subtask["requirements"],
          }
        : {}),
    });
  });
  return { subs: outSubs, steps: outSteps };
}

/**
 * A segment's data flow keeps its own destination only: `also_used_in` (a token sent on any read
 * of the record's collection, issue 15's legitimate variants) would let the token an earlier
 * segment minted, sent on its own listing, hold this segment's "the fresh token is used on the
 * read" (the requirement mutants caught it).
 */
function withoutSharedUses(p: G1Predicate): G1Predicate {
  // A value written in a body (an id the segment minted, claimed per segment) keeps its other
  // write routes: no earlier segment sends this segment's value.
  if (p.kind !== "data_flow" || p.also_used_in === undefined || p.used_in_slot?.in === "body") return p;
  const { also_used_in: _shared, ...own } = p;
  return own;
}
