import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import type { CanaryRef } from "../bank/task-schema.js";

// Crockford-style alphabet without I, L, O, U: canaries must not read as words or be mistyped.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A canary: a distinctive value the world mints into exactly one correct response. It is derived
 * from the trial seed, so two trials of one task see different canaries and a transcript from
 * another trial, or a released answer key, does not pass.
 *
 * @example mintCanary("seed-1", { $canary: "firmware", format: "FW-{code}" }) // "FW-7Q2K9D"
 */
export function mintCanary(trialSeed: string, ref: CanaryRef): string {
  let known = minted.get(ref);
  // One trial mints its few canaries many times over: the last seed's is kept at hand.
  if (known?.seed === trialSeed) return known.value;
  const value = known?.bySeed.get(trialSeed) ?? canaryOf(trialSeed, ref);
  if (!known || known.bySeed.size > 20_000) {
    known = { seed: trialSeed, value, bySeed: new Map() };
    minted.set(ref, known);
  }
  known.bySeed.set(trialSeed, value);
  known.seed = trialSeed;
  known.value = value;
  return value;
}

/** The canary itself: the seed and the reference's name hashed, six letters of it in its format. */
function canaryOf(trialSeed: string, ref: CanaryRef): string {
  const hex = sha256Hex(`canary:${trialSeed}:${ref.$canary}`);
  let code = "";
  for (let i = 0; i < 6; i++) code += ALPHABET[Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return (ref.format ?? "{code}").replace("{code}", code);
}

// A trial resolves the same canaries several times (world records, answer fields, predicates):
// hashing each once matters when a bank's worth of trials is graded. Keyed by the reference (bank
// data, never mutated) then the seed, not by a key string built per call: building and hashing it
// was most of a re-grade's cost of canaries. The seed last asked of a reference is compared before
// the map is looked up (a fresh seed string is hashed on its first lookup). A pure function of its key.
const minted = new WeakMap<CanaryRef, { seed: string; value: string; bySeed: Map<string, string> }>();

/** True for `{"$canary": "name"}` (with an optional `format`) and nothing else. */
export function isCanaryRef(value: unknown): value is CanaryRef {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return (
    typeof (value as { $canary?: unknown }).$canary === "string" &&
    keys.every((k) => k === "$canary" || k === "format")
  );
}

/** Replace every canary reference inside a JSON value by the trial's canary. */
export function resolveCanaries(value: unknown, trialSeed: string): JsonValue {
  if (isCanaryRef(value)) return mintCanary(trialSeed, value);
  if (Array.isArray(value)) return value.map((v) => resolveCanaries(v, trialSeed));
  if (value !== null && typeof value === "object") {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolveCanaries(v, trialSeed);
    return out;
  }
  return value as JsonValue;
}

/**
 * The trial seed: one value per (bank, task, epoch, run salt). Everything random inside a trial —
 * canaries, minted ids, tokens — derives from it, never from the clock. `apiflow run` draws a salt
 * per run (recorded in its manifest; `--salt` reproduces a run), so another run's transcript of the
 * same task and epoch carries other canaries and is no answer key. Certification and the bank use
 * no salt (`""`): they stay a pure function of the bank.
 *
 * @example trialSeed("apiflow-1", "harbor-telemetry-sub01", 1, "3f9c…") !== trialSeed("apiflow-1", "harbor-telemetry-sub01", 1)
 */
export function trialSeed(bankSeed: string, taskId: string, epoch: number, salt = ""): string {
  const base = `trial:${bankSeed}:${taskId}:${epoch}`;
  return sha256Hex(salt === "" ? base : `${base}:salt:${salt}`).slice(0, 24);
}
