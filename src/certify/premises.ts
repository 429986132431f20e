import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import { replacePlaceholders } from "../bank/placeholder-grammar.js";
import type { Premise } from "../bank/premise-schema.js";
import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { playOnTrial } from "../run/replay-setup.js";
import { resolveCanaries, trialSeed } from "../world/canary.js";
import { staleCredentialName } from "../world/credential.js";
import { requestBodySchema } from "../world/openapi.js";
import { phraseError, readError } from "../world/reply.js";
import { requestSignature, SIGNATURE_HEADERS } from "../world/request-signature.js";
import { inProcessTransport } from "../world/transport.js";
import { wireRequest } from "../world/versioning.js";
import { worldCaller } from "../world/world-caller.js";
import { chainSegments, occursAsToken, routeFor, worldOf } from "./certify-kit.js";
import type { GateFailure } from "./certify-schema.js";
import { specBodyMismatches } from "./spec-bodies.js";
import { startWorld, type TrialRunner } from "./trial-tree.js";

export const PREMISES_VERSION = "1.1.0";

/**
 * Gate `premises`: what a task's ticket claims the world did is what the generated world does.
 * Each `call` premise is sent to the world in the state the storyline left before the task (its
 * setup replayed), with the credential it names, and must get the status, error code and wording
 * the ticket quotes (and the ticket must quote them as the world words them). Each `spec_body`
 * premise's fields must all be documented in the spec's request body of that route, and that body,
 * built as the spec documents it, must be one the world accepts (`specBodyMismatches`). A chain
 * must carry each segment's nonce counter its solo task claims, checked as that segment starts
 * (after the chain's earlier segments). A solo task declaring no premise passes.
 *
 * @example await premiseFindings(bank, task) // [] when every claim holds
 */
export async function premiseFindings(bank: Bank, task: Task, runner?: TrialRunner): Promise<GateFailure[]> {
  const premises = task.premises ?? [];
  const world = worldOf(bank, task);
  // A GraphQL/MCP variant quotes its REST original's calls: they are checked on the REST world.
  if ((world.protocol ?? "rest") !== "rest") return [];
  const failures: GateFailure[] = [];
  const fail = (check: string, message: string) => failures.push({ task_id: task.id, check, message });
  if (task.kind === "chain")
    for (const m of unheldChainCounters(bank, task)) fail("nonce_counter:not_carried", m);
  if (premises.length === 0) return failures;
  const calls = premises.filter((p) => p.kind === "call");
  const send = calls.length > 0 ? await worldSender(bank, world, task, runner) : null;
  for (const premise of premises) {
    if (premise.kind === "spec_body") {
      const hit = routeFor(world, premise.method, premise.path);
      if (!hit) {
        fail(
          "spec_body:no_route",
          `the ticket names ${premise.method} ${premise.path}, which the spec does not document`,
        );
        continue;
      }
      const properties = (requestBodySchema(world, hit.route).properties ?? {}) as Record<string, JsonValue>;
      const absent = premise.fields.filter((f) => !(f in properties));
      if (absent.length > 0)
        fail(
          "spec_body:undocumented_field",
          `the ticket says the spec documents ${absent.map((f) => `\`${f}\``).join(", ")} in the body of ${premise.method} ${premise.path}, but the spec's body has no such field`,
        );
      // What the ticket points at in the spec must be what the world accepts.
      const refused = specBodyMismatches(world).find(
        (m) => m.route === `${hit.route.method} ${hit.route.path}`,
      );
      if (refused) fail("spec_body:refused", `${premise.method} ${premise.path}: ${refused.message}`);
      continue;
    }
    if (premise.kind === "nonce_counter") {
      for (const f of await nonceCounterFindings(bank, world, task, premise, runner))
        fail(f.check, f.message);
      continue;
    }
    if (!send) continue;
    const got = await send(premise);
    const seen = readError(got.body);
    const said = phraseError(world.errors, premise.error ?? "", premise.message ?? "", premise.status);
    const what = `${premise.method} ${premise.url}`;
    if (got.status !== premise.status)
      fail("call:status", `the ticket says ${what} got ${premise.status}, the world answers ${got.status}`);
    else if (premise.error !== undefined && seen?.code !== said.code)
      fail(
        "call:error",
        `the ticket says ${what} got error ${said.code}, the world answers ${seen?.code ?? "no error"}`,
      );
    else if (premise.message !== undefined && seen?.message !== said.message)
      fail(
        "call:message",
        `the ticket quotes ${what}'s error as "${said.message}", the world says "${seen?.message}"`,
      );
    else if (premise.error !== undefined && !task.ticket.includes(said.code))
      fail("call:unquoted", `the ticket does not quote the error code ${said.code} it declares for ${what}`);
    else if (premise.message !== undefined && !task.ticket.includes(said.message))
      fail("call:unquoted", `the ticket does not quote the error message it declares for ${what}`);
  }
  return failures;
}

/**
 * A `nonce_counter` premise on the world the task starts from (set-up replayed): the ticket states
 * the number; the signed read of `url` with nonce `stands_at - 1` (the key's last) is refused with
 * 401 `stale_nonce`, and with `stands_at` it is served.
 */
async function nonceCounterFindings(
  bank: Bank,
  world: World,
  task: Task,
  premise: Extract<Premise, { kind: "nonce_counter" }>,
  runner?: TrialRunner,
): Promise<Array<{ check: string; message: string }>> {
  const out: Array<{ check: string; message: string }> = [];
  const n = premise.stands_at;
  if (!occursAsToken(task.ticket, String(n)))
    out.push({
      check: "nonce_counter:unquoted",
      message: `the ticket does not state the nonce counter ${n}`,
    });
  const seed = trialSeed(bank.manifest.seed, task.id, 1);
  const trial = await startWorld(bank, task, runner);
  // A chain's counter is claimed as its segment starts: after the chain's earlier segments.
  const segments = task.kind === "chain" ? chainSegments(task) : null;
  if (segments && premise.segment !== undefined) {
    const start = segments.success
      ? segments.data.find((s) => s.position === premise.segment)?.start
      : undefined;
    if (start === undefined) {
      out.push({
        check: "nonce_counter:segment",
        message: `the nonce counter is claimed for segment ${premise.segment}, which the chain's golden does not hold`,
      });
      return out;
    }
    await playOnTrial(trial, task, seed, task.golden.slice(0, start));
  }
  const send = inProcessTransport(trial);
  // The read as the world wants it on the wire (its version carried by header or query where the
  // world says so), and signed as sent.
  const wire = wireRequest(task.versioning, { url: `${world.base_url}${premise.url}`, headers: {} });
  const signed = async (nonce: number) => {
    const url = new URL(wire.url);
    const res = await send(
      new Request(url, {
        method: "GET",
        headers: {
          ...wire.headers,
          [SIGNATURE_HEADERS.keyId]: world.auth.client_id,
          [SIGNATURE_HEADERS.nonce]: String(nonce),
          [SIGNATURE_HEADERS.signature]: requestSignature(
            world.auth.client_secret,
            "GET",
            url,
            String(nonce),
            null,
          ),
        },
      }),
    );
    return { status: res.status, error: readError(await res.json().catch(() => null))?.code };
  };
  const reused = await signed(n - 1);
  const stale = phraseError(world.errors, "stale_nonce", "", 401).code;
  if (reused.status !== 401 || reused.error !== stale)
    out.push({
      check: "nonce_counter:reuse_served",
      message: `the ticket says the nonce counter stands at ${n}, but the world answers a signed GET ${premise.url} with nonce ${n - 1} ${reused.status}${reused.error ? ` ${reused.error}` : ""}, not 401 ${stale}: the key has no such history`,
    });
  const next = await signed(n);
  if (next.status >= 400)
    out.push({
      check: "nonce_counter:next_refused",
      message: `the ticket says the nonce counter stands at ${n}, but a signed GET ${premise.url} with nonce ${n} gets ${next.status}${next.error ? ` ${next.error}` : ""}`,
    });
  return out;
}

/**
 * A chain's segments whose solo task claims a nonce counter the chain does not carry as a premise
 * of that segment: its step states the counter (the solo task's brief), and nothing checks it.
 */
function unheldChainCounters(bank: Bank, chain: Task): string[] {
  const carried = new Set(
    (chain.premises ?? []).flatMap((p) =>
      p.kind === "nonce_counter" ? [`${p.segment}:${p.stands_at}`] : [],
    ),
  );
  return chain.positions.flatMap((segment) => {
    const solo = bank.tasks.find(
      (t) => t.kind === "solo" && t.world === chain.world && t.positions[0] === segment,
    );
    return (solo?.premises ?? []).flatMap((p) =>
      p.kind === "nonce_counter" && !carried.has(`${segment}:${p.stands_at}`)
        ? [
            `segment ${segment}'s step says the nonce counter stands at ${p.stands_at} (as ${solo?.id} does), but the chain carries no such premise: the world is not seeded with it and nothing checks it`,
          ]
        : [],
    );
  });
}

type Sender = (premise: Extract<Premise, { kind: "call" }>) => Promise<{ status: number; body: unknown }>;

/** Sends premises to a fresh trial world of `task` (setup replayed), minting tokens as each one asks. */
async function worldSender(bank: Bank, world: World, task: Task, runner?: TrialRunner): Promise<Sender> {
  const seed = trialSeed(bank.manifest.seed, task.id, 1);
  const { call, mint } = worldCaller(world, inProcessTransport(await startWorld(bank, task, runner)));
  const stale = resolveCanaries(task.workspace.vault[staleCredentialName(world.auth)] ?? null, seed);
  // A quoted call on the record a workspace variable holds names it `{{variable}}` (vault, then
  // local, then global, as the agent's own placeholders resolve).
  const { vault, local, global } = task.workspace;
  const resolveVariables = (url: string) =>
    replacePlaceholders(url, (name, whole) => {
      const v = resolveCanaries(vault[name] ?? local[name] ?? global[name] ?? null, seed);
      return v === null ? whole : String(v);
    });
  const anyRead = world.routes.find(
    (r) => r.status === "canonical" && r.action === "list" && !r.path.includes("{"),
  );
  return async (premise) => {
    let token = typeof stale === "string" ? stale : null;
    if (premise.token !== "stale") token = await mint();
    if (premise.token === "expired" && anyRead)
      for (let i = 0; i < (world.auth.ttl_calls ?? 0); i++) await call("GET", anyRead.path, token);
    return call(premise.method, resolveVariables(premise.url), token, premise.body, premise.wait);
  };
}
