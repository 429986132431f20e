import type { BankContent } from "../bank/bank.js";
import { Rng } from "../bank/rng.js";
import { type CertifyOptions, certifyBank } from "../certify/certify-bank.js";
import type { CertifyReport, GateFailure } from "../certify/certify-schema.js";
import type { CertificationLog } from "../generate/certification-log.js";
import { soloTaskId } from "../generate/compose.js";
import { DEFAULT_SEED, type GenerateOptions, generateBank } from "../generate/generate-bank.js";
import type { Redraw } from "../generate/storyline.js";

export type { CertificationLog, Regeneration } from "../generate/certification-log.js";

/** Re-draws a failing storyline position gets before its solo task is dropped. */
export const DEFAULT_REDRAW_ATTEMPTS = 3;

export interface CertifiedBankOptions extends Omit<GenerateOptions, "redraws" | "inspect"> {
  /** How to certify (default: every gate, the golden oracle, this thread). */
  certify?: Omit<CertifyOptions, "tasks">;
  /** Re-draws per failing position (default `DEFAULT_REDRAW_ATTEMPTS`). */
  attempts?: number;
}

export type CertifiedBankResult =
  | { success: true; data: { content: BankContent; report: CertifyReport; log: CertificationLog } }
  | { success: false; error: { code: string; message: string } };

interface Generated {
  content: BankContent;
  /** Template id per world, by position (index 0 = position 1). */
  templates: Map<string, string[]>;
}

/**
 * Generate a bank and certify it; a task that fails a gate is regenerated or its chain truncated,
 * never padded in uncertified (issue 8). A failing solo position is re-drawn — another template of
 * its axis, from a stream salted with world, position and attempt, so the same seed always gives
 * the same bank — and its world rebuilt forward from there and certified again, earliest failing
 * position first (later positions depend on the state it leaves). After `attempts` re-draws it is
 * dropped. Then each world's chains are truncated to the longest prefix whose segments and chains
 * all passed. Every change is in `log`, for the datasheet and the command's output.
 *
 * @example const r = await generateCertifiedBank({ seed: "private-7" }); if (r.success) writeBank(dir, r.data.content);
 */
export async function generateCertifiedBank(
  options: CertifiedBankOptions = {},
): Promise<CertifiedBankResult> {
  const seed = options.seed ?? DEFAULT_SEED;
  const { certify: certifyOptions = {}, attempts = DEFAULT_REDRAW_ATTEMPTS, ...generateOptions } = options;
  const redraws = new Map<string, Map<number, Redraw & { attempt: number; exclude: Set<string> }>>();
  const givenUp = new Map<string, Map<number, string>>();
  /** `world:N` where re-drawing position N for its failing chains is exhausted: the chains are cut there. */
  const chainGaveUp = new Set<string>();
  const log: CertificationLog = { regenerated: [], dropped: [], truncated: [] };

  const generate = (): Generated | { error: { code: string; message: string } } => {
    const templates = new Map<string, string[]>();
    const r = generateBank({
      ...generateOptions,
      redraws,
      inspect: (built, story) =>
        templates.set(
          built.world.id,
          story.subtasks.map((s) => s.template),
        ),
      // A position whose requirements cannot be graded is re-drawn by the generator itself
      // (each regeneration re-draws it the same way: logged once).
      onRedraw: ({ world, position, attempt, from, reason }) => {
        const why = `requirements_unheld: ${reason}`;
        if (
          !log.regenerated.some(
            (g) => g.world === world && g.position === position && g.from === from && g.reason === why,
          )
        )
          log.regenerated.push({ world, position, attempt, from, to: "", reason: why });
      },
    });
    if (r.success)
      for (const entry of log.regenerated)
        if (entry.to === "") entry.to = templates.get(entry.world)?.[entry.position - 1] ?? "";
    return r.success ? { content: r.data, templates } : { error: r.error };
  };

  let generated = generate();
  if ("error" in generated) return { success: false, error: generated.error };
  let report = await certifyBank(generated.content, certifyOptions);
  const failures = failuresByTask(report);
  for (;;) {
    const retry = new Set<string>();
    const current: Generated = generated;
    for (const world of current.content.worlds) {
      const templates = current.templates.get(world.id) ?? [];
      const gaveUp = givenUp.get(world.id) ?? new Map<number, string>();
      givenUp.set(world.id, gaveUp);
      const byPosition = redraws.get(world.id) ?? new Map();
      redraws.set(world.id, byPosition);
      /** Re-draw position k for `reason`, or say why it cannot be (no other template, no attempts left). */
      const redraw = (k: number, reason: string): string | null => {
        const previous = byPosition.get(k);
        const failedTemplate = templates[k - 1] as string;
        // The last re-draw found no other template of the axis: the position keeps failing.
        if (previous?.exclude.has(failedTemplate)) return `no other template of its axis; ${reason}`;
        const attempt = (previous?.attempt ?? 0) + 1;
        if (attempt > attempts) return `still failing after ${attempts} re-draw(s); ${reason}`;
        const exclude = new Set(previous?.exclude ?? []);
        exclude.add(failedTemplate);
        byPosition.set(k, { attempt, exclude, rng: Rng.derive(seed, `redraw:${world.id}:${k}:${attempt}`) });
        log.regenerated.push({ world: world.id, position: k, attempt, from: failedTemplate, to: "", reason });
        retry.add(world.id);
        return null;
      };
      for (let k = 1; k <= templates.length && !retry.has(world.id); k++) {
        const found = failures.get(soloTaskId(world.id, k));
        if (!found || gaveUp.has(k)) continue;
        const refused = redraw(k, describe(found));
        if (refused !== null) gaveUp.set(k, refused);
      }
      if (retry.has(world.id)) continue;
      // Every solo task passes (or its position was given up), yet a chain fails: its segments
      // certify alone and not together (a full segment reading its fix off an error on the route a
      // hard segment's work goes to, say). The shortest failing chain 1toN passed as 1to(N-1), so
      // position N is what broke it: re-drawn like a failing solo position, rather than cutting
      // every chain of the world from N on. A position before it given up cuts there anyway.
      const chain = shortestFailingChain(current.content, world.id, failures);
      if (
        !chain ||
        [...gaveUp.keys()].some((k) => k <= chain.length) ||
        chainGaveUp.has(`${world.id}:${chain.length}`)
      )
        continue;
      const refused = redraw(chain.length, `${chain.id}: ${describe(chain.found)}`);
      if (refused !== null) chainGaveUp.add(`${world.id}:${chain.length}`);
    }
    if (retry.size === 0) break;
    const next = generate();
    if ("error" in next) return { success: false, error: next.error };
    generated = next;
    for (const entry of log.regenerated) {
      if (entry.to === "") entry.to = generated.templates.get(entry.world)?.[entry.position - 1] ?? "";
    }
    // Only the rebuilt worlds changed: every world's storyline has its own seeded stream.
    const partial = await certifyBank(generated.content, {
      ...certifyOptions,
      tasks: (t) => retry.has(t.world),
    });
    for (const t of current.content.tasks) if (retry.has(t.world)) failures.delete(t.id);
    for (const [id, f] of failuresByTask(partial)) failures.set(id, f);
  }
  // The bank-wide gates and the recorded counts come from one run over the bank as written.
  if (log.regenerated.length > 0) report = await certifyBank(generated.content, certifyOptions);
  const content = truncateUncertified(generated.content, failuresByTask(report), givenUp, log);
  return { success: true, data: { content, report, log } };
}

/** A world's shortest chain that fails a hard gate, with its findings; null when none fails. */
function shortestFailingChain(
  content: BankContent,
  world: string,
  failures: ReadonlyMap<string, ReadonlyArray<GateFailure & { gate: string }>>,
): { id: string; length: number; found: ReadonlyArray<GateFailure & { gate: string }> } | null {
  let best: { id: string; length: number; found: ReadonlyArray<GateFailure & { gate: string }> } | null =
    null;
  for (const t of content.tasks) {
    const found = t.world === world && t.kind === "chain" ? failures.get(t.id) : undefined;
    if (found && (!best || t.positions.length < best.length))
      best = { id: t.id, length: t.positions.length, found };
  }
  return best;
}

/** Each failing task's findings over every hard gate, in gate order. */
function failuresByTask(report: CertifyReport): Map<string, Array<GateFailure & { gate: string }>> {
  const out = new Map<string, Array<GateFailure & { gate: string }>>();
  for (const [gate, g] of Object.entries(report.gates)) {
    // A soft gate (see `hard` in the gate registry) reports; it does not regenerate or drop.
    if (!g.hard) continue;
    for (const f of g.failures) out.set(f.task_id, [...(out.get(f.task_id) ?? []), { ...f, gate }]);
  }
  return out;
}

function describe(found: ReadonlyArray<GateFailure & { gate: string }>): string {
  const f = found[0];
  return f ? `${f.gate}/${f.check}: ${f.message}` : "failed a gate";
}

/**
 * The bank without its uncertified tasks: a failing solo task goes; each world's chains are cut to
 * the longest prefix before its first failing position or failing chain, so no chain keeps a
 * segment (or extends a chain) that failed.
 */
function truncateUncertified(
  content: BankContent,
  failures: ReadonlyMap<string, ReadonlyArray<GateFailure & { gate: string }>>,
  givenUp: ReadonlyMap<string, ReadonlyMap<number, string>>,
  log: CertificationLog,
): BankContent {
  const cuts = new Map<string, { at: number; reason: string }>();
  const cutAt = (world: string, at: number, reason: string) => {
    const was = cuts.get(world);
    if (!was || at < was.at) cuts.set(world, { at, reason });
  };
  for (const t of content.tasks) {
    const found = failures.get(t.id);
    if (!found) continue;
    const n = t.positions[t.positions.length - 1] ?? 0;
    if (t.kind === "solo") {
      const why = givenUp.get(t.world)?.get(n) ?? describe(found);
      log.dropped.push({ task: t.id, reason: why });
      cutAt(t.world, n, `position ${n} (${t.id}) is not certified`);
    } else cutAt(t.world, n, `${t.id} failed ${describe(found)}`);
  }
  const kept = content.tasks.filter((t) => {
    if (t.kind === "solo") return !failures.has(t.id);
    const cut = cuts.get(t.world);
    const n = t.positions.length;
    if (!cut || n < cut.at) return true;
    const own = failures.get(t.id);
    log.dropped.push({ task: t.id, reason: own ? describe(own) : `truncated: ${cut.reason}` });
    return false;
  });
  for (const [world, cut] of cuts) {
    const chains = content.tasks.filter((t) => t.world === world && t.kind === "chain");
    if (chains.length === 0) continue;
    const was = Math.max(...chains.map((t) => t.positions.length));
    const longest = Math.max(
      0,
      ...kept.filter((t) => t.world === world && t.kind === "chain").map((t) => t.positions.length),
    );
    if (longest < was) log.truncated.push({ world, longest, was, reason: cut.reason });
  }
  return { ...content, tasks: kept };
}
