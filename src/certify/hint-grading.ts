import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import { replacePlaceholders } from "../bank/placeholder-grammar.js";
import type { Premise } from "../bank/premise-schema.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { type HintPlan, playOnTrial, taskHintLevel, taskHintPlan } from "../run/replay-setup.js";
import { resolveCanaries, trialSeed } from "../world/canary.js";
import { credentialHeader, staleCredentialName } from "../world/credential.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { convertStep, type VariantProtocol } from "../world/protocol-step.js";
import { FIX_KEYS, hintLevelAt } from "../world/reply.js";
import { routeTemplateOnPath } from "../world/route-path.js";
import { inProcessTransport } from "../world/transport.js";
import type { TrialWorld } from "../world/trial-world.js";
import { worldCaller } from "../world/world-caller.js";
import { occursAsToken, worldOf } from "./certify-kit.js";
import type { GateFailure } from "./certify-schema.js";
import { restOf } from "./native-rest.js";
import { startWorld, type TrialRunner } from "./trial-tree.js";

export const HINT_GRADING_VERSION = "1.1.0";

type CallPremise = Extract<Premise, { kind: "call" }>;

/** Request headers the harness or HTTP adds to any call: knowing to send them is no fix. */
const PLAIN_HEADERS = new Set(["authorization", "content-type", "content-length", "accept", "x-api-key"]);

const pathOf = (url: string) => url.split("?")[0] ?? url;
const loose = (name: string) => name.toLowerCase().replace(/[_-]/g, "");
const isObject = (v: unknown): v is Record<string, JsonValue> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** One literal of a fix: another method, a renamed field, an accepted value, a header to send. */
export interface FixLiteral {
  kind: "method" | "field" | "value" | "header";
  literal: string;
}

/**
 * The fix of each call the ticket quotes, as literals: what the golden's repaired call sends that
 * the client's broken one did not. Another method (a 405's fix); a body field the client sent under
 * another spelling (the renamed field); a string value the golden sends where the client sent
 * another (the accepted value); a header the client did not send (the wait, the idempotency key,
 * the version header). A field the client left out altogether is not among them: naming a missing
 * required field says what is wrong.
 *
 * @example fixLiterals([{ kind: "call", method: "PUT", url: "/v3/vessels/V-1", body: { status: "OPEN" }, token: "fresh", status: 405 }], exchanges, "/v3/oauth/token")
 * // [{ kind: "method", literal: "PATCH" }, { kind: "value", literal: "open" }]
 */
export function fixLiterals(
  premises: readonly Premise[],
  golden: readonly ExchangeEvent[],
  tokenPath = "",
): FixLiteral[] {
  const out = new Map<string, FixLiteral>();
  const add = (kind: FixLiteral["kind"], literal: string) => out.set(`${kind}:${literal}`, { kind, literal });
  for (const p of premises) {
    if (p.kind !== "call" || p.status < 400) continue;
    let repaired = golden.filter((e) => e.status < 400 && pathOf(e.url) === pathOf(p.url));
    // The client's path was wrong too (a display name for an id): its write's repair is any write.
    if (repaired.length === 0 && p.method !== "GET")
      repaired = golden.filter((e) => e.status < 400 && e.method !== "GET" && pathOf(e.url) !== tokenPath);
    for (const e of repaired) {
      if (e.method !== p.method && e.method !== "GET") add("method", e.method);
      const sent = isObject(p.body) ? p.body : {};
      if (isObject(e.request_body))
        for (const [k, v] of Object.entries(e.request_body)) {
          if (!(k in sent)) {
            if (Object.keys(sent).some((c) => c !== k && loose(c) === loose(k))) add("field", k);
            // One character is too short to tell a named value from any other word.
          } else if (typeof v === "string" && v !== sent[k] && v.length > 1) add("value", v);
        }
      for (const h of Object.keys(e.request_headers))
        if (!PLAIN_HEADERS.has(h) && !(p.wait && h === "x-apiflow-wait")) add("header", h);
    }
  }
  return [...out.values()];
}

/**
 * What in one error exchange names a fix: a key of `FIX_KEYS` at any depth of the body (a hint, the
 * accepted values, the expected name, the allowed methods), an `Allow` header, or one of `literals`
 * (see `fixLiterals`) as a whole token of the body. A renamed field counts only where this request
 * sent it under another spelling: an error listing a field the request left out says what is
 * wrong (it is missing). Empty when the error only says what is wrong.
 *
 * @example fixesNamed(exchange, [{ kind: "field", literal: "vesselId" }]) // ["body key hint", "names vesselId"]
 */
export function fixesNamed(exchange: ExchangeEvent, literals: readonly FixLiteral[]): string[] {
  if (exchange.status < 400) return [];
  const found: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v))
      for (const [k, x] of Object.entries(v)) {
        if (FIX_KEYS.includes(k)) found.push(`body key ${k}`);
        walk(x);
      }
  };
  walk(exchange.response_body);
  if ("allow" in exchange.response_headers) found.push(`allow header (${exchange.response_headers.allow})`);
  const text = JSON.stringify(exchange.response_body ?? "");
  const sentKeys = isObject(exchange.request_body) ? Object.keys(exchange.request_body) : [];
  for (const { kind, literal } of literals) {
    if (kind === "field" && !sentKeys.some((k) => k !== literal && loose(k) === loose(literal))) continue;
    if (occursAsToken(text, literal)) found.push(`names ${literal}`);
  }
  return [...new Set(found)];
}

/**
 * The error exchanges an agent of `task` meets on the way (the calls its ticket quotes, sent as the
 * client sent them, then the golden's run) and the fix each names. Runs whatever the task's hint
 * level: `hintGradingFindings` asks it only of a task whose world is terse.
 *
 * @example await fixesShown(bank, task, runner) // [] when no error names its fix
 */
export async function fixesShown(
  bank: Bank,
  task: Task,
  runner: TrialRunner,
): Promise<Array<{ method: string; url: string; status: number; fixes: string[] }>> {
  const world = worldOf(bank, task);
  const golden = await runner.run(task, goldenAgentFactory);
  const goldenExchanges = golden.events.filter((e): e is ExchangeEvent => e.type === "exchange");
  const premises = task.premises ?? [];
  const literals = fixLiterals(premises, goldenExchanges, world.auth.token_path);
  const calls = premises.filter((p): p is CallPremise => p.kind === "call");
  const quoted =
    calls.length > 0 ? await quotedCalls(bank, task, calls, await startWorld(bank, task, runner)) : [];
  return [...quoted, ...goldenExchanges].flatMap((e) => {
    const fixes = fixesNamed(e, literals);
    return fixes.length > 0 ? [{ method: e.method, url: e.url, status: e.status, fixes }] : [];
  });
}

/**
 * Check `hint_grading` on one task (issue 16): a task whose world is terse (a hard solo task) meets
 * no error that names its fix; the fix is left to the spec, a linked resource or another response.
 * A chain is checked segment by segment (`chainHintFindings`). Every other task passes: at easy and
 * medium an error may name its fix.
 *
 * @example await hintGradingFindings(bank, task, sharedTrials(bank)) // []
 */
export async function hintGradingFindings(
  bank: Bank,
  task: Task,
  runner: TrialRunner,
): Promise<GateFailure[]> {
  if (task.kind === "chain") return chainHintFindings(bank, task, runner);
  if (taskHintLevel(task) !== "terse") return [];
  return (await fixesShown(bank, task, runner)).map((f) => ({
    task_id: task.id,
    check: `hint_grading:${f.status}`,
    message: `${f.method} ${f.url} answered ${f.status} naming its fix (${f.fixes.join("; ")}); a hard task's error says only what is wrong`,
  }));
}

/**
 * `hint_grading` on a chain: each segment whose own solo task is hard must be terse in the chain's
 * `segment_hints`; each terse segment's quoted calls (its solo task's premises, sent as the client
 * sent them on the state the storyline left, served with the chain's hint plan) and every error of
 * the chain's golden run on a terse route must name no fix of a terse segment (the literals of
 * each one's quoted calls, see `fixLiterals`, besides `FIX_KEYS` and `Allow`). A segment with no
 * solo task in the bank (a chain on its own) is checked by its golden run alone.
 *
 * @example await chainHintFindings(bank, chain, sharedTrials(bank)) // []
 */
export async function chainHintFindings(bank: Bank, task: Task, runner: TrialRunner): Promise<GateFailure[]> {
  const world = worldOf(bank, task);
  const failures: GateFailure[] = [];
  const plan = taskHintPlan(task);
  const levels = new Map((task.segment_hints ?? []).map((s) => [s.segment, s.level]));
  const literals: FixLiteral[] = [];
  for (const segment of task.positions) {
    const solo = bank.tasks.find(
      (t) => t.kind === "solo" && t.world === task.world && t.positions[0] === segment,
    );
    if (!solo || taskHintLevel(solo) !== "terse") continue;
    if (levels.get(segment) !== "terse") {
      failures.push({
        task_id: task.id,
        check: `hint_grading:segment_${segment}:level`,
        message: `segment ${segment} is hard (${solo.id}) but the chain serves its errors with every hint; a hard segment is terse`,
      });
      continue;
    }
    const hard = await hardSegment(bank, solo, runner);
    const own = hard.literals;
    literals.push(...own);
    for (const e of await hard.quoted(plan)) {
      const fixes = fixesNamed(e, own);
      if (fixes.length > 0)
        failures.push({
          task_id: task.id,
          check: `hint_grading:segment_${segment}:${e.status}`,
          message: `segment ${segment}'s quoted ${e.method} ${e.url} answered ${e.status} naming its fix (${fixes.join("; ")}); a hard segment's error says only what is wrong`,
        });
    }
  }
  if (plan.terseRoutes.length === 0) return failures;
  const run = await runner.run(task, goldenAgentFactory);
  for (const e of run.events) {
    if (e.type !== "exchange" || e.status < 400) continue;
    const route = routeTemplateOnPath(world.routes, pathOf(e.url));
    if (hintLevelAt(plan.level, plan.terseRoutes, route) !== "terse") continue;
    const fixes = fixesNamed(e, literals);
    if (fixes.length > 0)
      failures.push({
        task_id: task.id,
        check: `hint_grading:golden:${e.status}`,
        message: `the golden's ${e.method} ${e.url} answered ${e.status} on a hard segment's route naming a fix (${fixes.join("; ")})`,
      });
  }
  return failures;
}

/** What `chainHintFindings` reads of a hard segment's solo task: the same for every chain holding it. */
interface HardSegment {
  /** The fix literals of the solo task's quoted calls (`fixLiterals` of its golden run). */
  literals: FixLiteral[];
  /** Its quoted calls' exchanges, served with `plan` (see `quotedCalls`). */
  quoted(plan: HintPlan): Promise<ExchangeEvent[]>;
}

// A hard segment is checked in every chain that reaches its position (up to 19 in a world), each
// time from the same solo golden run and the same storyline-replayed world: both are made once per
// solo task, and each chain's quoted calls go to a fork of that world.
const hardSegments = new WeakMap<Bank, WeakMap<Task, Promise<HardSegment>>>();

function hardSegment(bank: Bank, solo: Task, runner: TrialRunner): Promise<HardSegment> {
  let ofBank = hardSegments.get(bank);
  if (!ofBank) {
    ofBank = new WeakMap();
    hardSegments.set(bank, ofBank);
  }
  let memo = ofBank.get(solo);
  if (!memo) {
    memo = (async () => {
      const golden = await runner.run(solo, goldenAgentFactory);
      const exchanges = golden.events.filter((e): e is ExchangeEvent => e.type === "exchange");
      const premises = solo.premises ?? [];
      const literals = fixLiterals(premises, exchanges, worldOf(bank, solo).auth.token_path);
      const calls = premises.filter((p): p is CallPremise => p.kind === "call");
      const prepared = calls.length > 0 ? await startWorld(bank, solo, runner) : null;
      // The solo task's trials are not this chain's to keep: what it needs of them is kept here.
      runner.release(solo);
      return {
        literals,
        quoted: (plan) =>
          prepared ? quotedCalls(bank, solo, calls, prepared.fork(), plan) : Promise.resolve([]),
      };
    })();
    ofBank.set(solo, memo);
  }
  return memo;
}

/**
 * The calls the ticket quotes, sent as the client sent them on `trial`, a world in the state the
 * task's epoch-1 trials start from (`startWorld`); what the world answered. `plan`: serve them
 * with another task's hint plan (a chain's) instead of the task's own. A GraphQL/MCP variant's
 * are sent in its protocol (`nativeQuotedCalls`): its hints are worded for the protocol the
 * request came in by.
 */
async function quotedCalls(
  bank: Bank,
  task: Task,
  calls: readonly CallPremise[],
  trial: TrialWorld,
  plan?: HintPlan,
): Promise<ExchangeEvent[]> {
  if (calls.length === 0) return [];
  const world = worldOf(bank, task);
  const seed = trialSeed(bank.manifest.seed, task.id, 1);
  if (plan) {
    trial.hints = plan.level;
    trial.terseRoutes = plan.terseRoutes;
  }
  if ((world.protocol ?? "rest") !== "rest") return nativeQuotedCalls(trial, task, seed, calls);
  const { call, mint } = worldCaller(world, inProcessTransport(trial));
  const stale = resolveCanaries(task.workspace.vault[staleCredentialName(world.auth)] ?? null, seed);
  const { vault, local, global } = task.workspace;
  const resolve = (url: string) =>
    replacePlaceholders(url, (name, whole) => {
      const v = resolveCanaries(vault[name] ?? local[name] ?? global[name] ?? null, seed);
      return v === null ? whole : String(v);
    });
  const out: ExchangeEvent[] = [];
  for (const p of calls) {
    const token = p.token === "stale" && typeof stale === "string" ? stale : await mint();
    const before = trial.log.exchanges().length;
    await call(p.method, resolve(p.url), token, p.body, p.wait);
    out.push(...trial.log.exchanges().slice(before));
  }
  return out;
}

/**
 * `quotedCalls` on a GraphQL/MCP world: each quoted call as the same operation in the world's
 * protocol (`convertStep`), with the vault's stale credential or one the task's golden mints the
 * way its first token step does, played on `trial`. A quoted call no operation of the protocol
 * stands for (a verb the route does not take: there is no verb to get wrong) cannot be sent, and
 * the agent never meets its error.
 */
async function nativeQuotedCalls(
  trial: TrialWorld,
  task: Task,
  seed: string,
  calls: readonly CallPremise[],
): Promise<ExchangeEvent[]> {
  const world = trial.world;
  const protocol = world.protocol as VariantProtocol;
  const mint = task.golden.find((s) => {
    const r = restOf(world, s);
    return r?.op === "execute" && pathOf(r.request.url) === world.auth.token_path;
  });
  const token = mint?.op === "execute_native" ? Object.keys(mint.capture)[0] : undefined;
  const steps: GoldenStep[] = [];
  for (const [i, p] of calls.entries()) {
    const credential = p.token === "stale" ? staleCredentialName(world.auth) : token;
    const [name, value] = credentialHeader(world.auth, credential ? `{{${credential}}}` : "");
    const headers: Record<string, string> = credential ? { [name]: value } : {};
    if (p.wait) headers["x-apiflow-wait"] = String(p.wait);
    const rest: GoldenStep = {
      op: "execute",
      request: { method: p.method, url: p.url, headers, ...(p.body ? { body: p.body } : {}) },
      capture: {},
    };
    const native = convertStep(world, protocol, rest, `quoted call ${i}`);
    if (typeof native !== "string") steps.push(native);
  }
  if (steps.length === 0) return [];
  // One play, so the calls see the token the mint bound; the mint's own exchange is not quoted.
  const minted = mint !== undefined && calls.some((p) => p.token !== "stale");
  const before = trial.log.exchanges().length;
  await playOnTrial(trial, task, seed, minted ? [mint, ...steps] : steps);
  return trial.log.exchanges().slice(before + (minted ? 1 : 0));
}
