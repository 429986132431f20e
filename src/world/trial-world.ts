import type { JsonObject, JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { mintCanary, resolveCanaries } from "./canary.js";
import { EventLog } from "./event-log.js";

interface TokenState {
  callsLeft: number;
  scopes: string[];
}

/**
 * The state of one world in one trial: its records (canaries resolved for this trial), the tokens
 * it minted, its id counters and its event log. Trials never share one, so nothing an agent does in
 * one trial can touch another.
 */
export class TrialWorld {
  readonly records: Map<string, JsonObject[]>;
  readonly log = new EventLog();
  /** When false (replaying the storyline before a task), exchanges are not logged. */
  recording = true;
  private readonly tokens = new Map<string, TokenState>();
  private readonly counters = new Map<string, number>();

  constructor(
    readonly world: World,
    readonly seed: string,
  ) {
    this.records = new Map();
    for (const [name, resource] of Object.entries(world.resources)) {
      this.records.set(
        name,
        resource.records.map((r) => resolveCanaries(r, seed) as JsonObject),
      );
    }
  }

  /** Next value of a named per-trial counter, starting at 1. */
  nextSeq(name: string): number {
    const n = (this.counters.get(name) ?? 0) + 1;
    this.counters.set(name, n);
    return n;
  }

  /** A seeded, trial-unique token in the given format (`{code}` replaced). */
  mint(label: string, format: string): string {
    return mintCanary(this.seed, { $canary: `${label}#${this.nextSeq(`mint:${label}`)}`, format });
  }

  issueToken(): { token: string; ttl: number; scopes: string[] } {
    const { auth } = this.world;
    const token = this.mint("token", `${auth.token_prefix}{code}`);
    const calls = auth.ttl_calls ?? Number.POSITIVE_INFINITY;
    this.tokens.set(token, { callsLeft: calls, scopes: [...auth.scopes] });
    return { token, ttl: auth.ttl_seconds ?? auth.ttl_calls ?? 0, scopes: [...auth.scopes] };
  }

  /** Spend one call of a token: `ok`, or why it was refused. */
  spendToken(
    token: string,
    needScopes: readonly string[],
  ): "ok" | "unknown" | "expired" | { missing: string } {
    const state = this.tokens.get(token);
    if (!state) return "unknown";
    if (state.callsLeft <= 0) return "expired";
    const missing = needScopes.find((s) => !state.scopes.includes(s));
    if (missing) return { missing };
    state.callsLeft -= 1;
    return "ok";
  }

  resource(name: string): JsonObject[] {
    const list = this.records.get(name);
    if (!list) throw new Error(`world ${this.world.id}: route names unknown resource ${name}`);
    return list;
  }
}

export type { JsonValue };
