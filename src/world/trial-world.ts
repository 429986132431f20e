import type { JsonObject, JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { mintCanary, resolveCanaries } from "./canary.js";
import { EventLog } from "./event-log.js";
import { type HintLevel, hintLevelAt } from "./reply.js";
import { routeTemplateOnPath } from "./route-path.js";
import { tokenLifetime } from "./token-lifetime.js";

interface TokenState {
  callsLeft: number;
  /** Logical second at which the token stops working. */
  expiresAt: number;
  scopes: string[];
}

/** A job opened by a `create` route with `async_job` (multistep). */
export interface JobState {
  id: string;
  routeId: string;
  resource: string;
  /** The record the job writes; its id is minted when the job opens, so the preview is stable. */
  record: JsonObject;
  createdAt: number;
  state: "pending" | "awaiting_confirmation" | "done";
}

/** A write staged by a 503 partial write, committed by a `{"confirm": true}` resend. */
export interface StagedWrite {
  recordId: string;
  record: JsonObject;
}

/** A stored response to an idempotency key, replayed for a repeat of the same request. */
export interface StoredReply {
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: JsonValue | null;
}

/**
 * Fields the world writes onto a record once the logical clock reaches `due` (a workflow's
 * `on_enter` with `after_seconds`): the record changes between two reads with no call of the agent's.
 */
export interface PendingChange {
  resource: string;
  idField: string;
  id: string;
  due: number;
  changes: JsonObject;
}

/** Largest `x-apiflow-wait` a request may ask for: an hour of logical time. */
export const MAX_WAIT_SECONDS = 3600;

/**
 * The state of one world in one trial: its records (canaries resolved for this trial), the tokens
 * it minted, its id counters, its logical clock, jobs, throttle windows, staged writes, stored
 * idempotent replies and its event log. Trials never share one, so nothing an agent does in one
 * trial can touch another.
 *
 * The clock is logical seconds from 0: each served request advances it by 1 (`tick`), an honoured
 * `Retry-After` by more (`advance`). The wall clock is never read.
 *
 * @example const trial = new TrialWorld(world, "seed-1"); trial.advance(5); trial.clock // 5
 */
export class TrialWorld {
  readonly records: Map<string, JsonObject[]>;
  readonly log: EventLog;
  /** When false (replaying the storyline before a task), exchanges are not logged. */
  recording = true;
  /** How much errors tell of their fix: the task's difficulty decides (see `hintLevelFor`). */
  hints: HintLevel = "full";
  /**
   * Route path templates whose errors are terse whatever `hints` says: a chain's hard segments'
   * routes (the task's `segment_hints`). See `hintLevel`.
   */
  terseRoutes: readonly string[] = [];
  private now = 0;
  private readonly tokens = new Map<string, TokenState>();
  private readonly refreshTokens = new Map<string, string[]>();
  private readonly counters = new Map<string, number>();
  private readonly resolvedCache = new Map<string, JsonValue>();
  private staleTokenSet: Set<string> | undefined;
  readonly jobs = new Map<string, JobState>();
  readonly throttles = new Map<string, number>();
  readonly staged = new Map<string, StagedWrite>();
  readonly replies = new Map<string, StoredReply>();
  /** Changes the world makes later, in the order they were scheduled (see `settle`). */
  readonly pending: PendingChange[] = [];
  /**
   * Records deleted during the trial (setup replay included), by resource, in deletion order: a
   * record reference still names a record a later step deleted (the run opened, then superseded).
   */
  readonly removed = new Map<string, JsonObject[]>();

  constructor(
    readonly world: World,
    readonly seed: string,
    from?: TrialWorld,
  ) {
    this.records = new Map();
    if (from) {
      this.log = from.log.fork();
      this.copyStateOf(from);
      return;
    }
    this.log = new EventLog();
    const initial = world.auth.initial_refresh_token;
    if (initial !== undefined)
      this.refreshTokens.set(initial, [...(world.auth.default_scopes ?? world.auth.scopes)]);
    for (const [name, resource] of Object.entries(world.resources)) {
      this.records.set(
        name,
        resource.records.map((r) => resolveCanaries(r, seed) as JsonObject),
      );
    }
  }

  /**
   * An independent copy of this trial's state (records, tokens, counters, clock, jobs, staged
   * writes, stored replies, the log so far): what the copy serves from here on is exactly what
   * this one would serve, and neither sees the other's later requests. Certification forks the
   * state a golden run reached instead of replaying the run again.
   *
   * @example const copy = trial.fork(); copy.tick(); copy.clock === trial.clock + 1
   */
  fork(): TrialWorld {
    return new TrialWorld(this.world, this.seed, this);
  }

  private copyStateOf(from: TrialWorld): void {
    // Routes mutate records in place (Object.assign, push, splice) and a finished job's record is
    // the same object as the one in its resource: copy each record once and keep that aliasing.
    const copies = new Map<JsonObject, JsonObject>();
    const copy = (r: JsonObject): JsonObject => {
      let c = copies.get(r);
      if (!c) {
        c = { ...r };
        copies.set(r, c);
      }
      return c;
    };
    for (const [name, list] of from.records) this.records.set(name, list.map(copy));
    this.now = from.now;
    for (const [k, v] of from.tokens) this.tokens.set(k, { ...v });
    for (const [k, v] of from.refreshTokens) this.refreshTokens.set(k, v);
    for (const [k, v] of from.counters) this.counters.set(k, v);
    // Resolving canaries is a pure function of the seed: the cache is shared, never changed.
    for (const [k, v] of from.resolvedCache) this.resolvedCache.set(k, v);
    this.staleTokenSet = from.staleTokenSet;
    for (const [k, v] of from.jobs) this.jobs.set(k, { ...v, record: copy(v.record) });
    for (const [k, v] of from.throttles) this.throttles.set(k, v);
    for (const [k, v] of from.staged) this.staged.set(k, { ...v, record: copy(v.record) });
    for (const [k, v] of from.replies) this.replies.set(k, v);
    for (const p of from.pending) this.pending.push({ ...p });
    for (const [k, v] of from.removed) this.removed.set(k, v.map(copy));
    this.recording = from.recording;
    this.hints = from.hints;
    this.terseRoutes = from.terseRoutes;
  }

  /**
   * How much an error on `path` (a request path, or a route template) tells of its fix: `hints`, or
   * `terse` when the route the path belongs to is one of `terseRoutes`.
   *
   * @example trial.terseRoutes = ["/v3/orders/dispatch"]; trial.hintLevel("/v3/orders/dispatch") // "terse"
   */
  hintLevel(path: string): HintLevel {
    if (this.hints === "terse" || this.terseRoutes.length === 0) return this.hints;
    return hintLevelAt(this.hints, this.terseRoutes, routeTemplateOnPath(this.world.routes, path));
  }

  /** The trial's logical clock, in seconds. */
  get clock(): number {
    return this.now;
  }

  /** One request was served: one logical second passes. */
  tick(): number {
    this.now += 1;
    return this.now;
  }

  /** Let logical time pass (an honoured `Retry-After`); never sleeps. */
  advance(seconds: number): number {
    if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`cannot advance the clock by ${seconds}`);
    this.now += Math.floor(seconds);
    return this.now;
  }

  /** Next value of a named per-trial counter, starting at 1. */
  nextSeq(name: string): number {
    const n = (this.counters.get(name) ?? 0) + 1;
    this.counters.set(name, n);
    return n;
  }

  /** The highest nonce a signing key has had accepted in this trial (0 before any). */
  lastNonce(keyId: string): number {
    return this.counters.get(`nonce:${keyId}`) ?? 0;
  }

  /** Record that a signed request with this nonce was accepted (nonces only go up). */
  acceptNonce(keyId: string, nonce: number): void {
    this.counters.set(`nonce:${keyId}`, Math.max(nonce, this.lastNonce(keyId)));
  }

  /** A seeded, trial-unique token in the given format (`{code}` replaced). */
  mint(label: string, format: string): string {
    return mintCanary(this.seed, { $canary: `${label}#${this.nextSeq(`mint:${label}`)}`, format });
  }

  /** A world value with its canary references resolved for this trial, cached under `key`. */
  resolved(key: string, value: JsonValue): JsonValue {
    let out = this.resolvedCache.get(key);
    if (out === undefined) {
      out = resolveCanaries(value, this.seed);
      this.resolvedCache.set(key, out);
    }
    return out;
  }

  /** Mint an access token with these scopes (and a refresh token when the world issues them). */
  issueToken(scopes?: readonly string[]): {
    token: string;
    ttl: number;
    scopes: string[];
    refreshToken?: string;
  } {
    const { auth } = this.world;
    const granted = [...(scopes ?? auth.default_scopes ?? auth.scopes)];
    const token = this.mint("token", `${auth.token_prefix}{code}`);
    const life = tokenLifetime(auth, granted);
    this.tokens.set(token, {
      callsLeft: auth.ttl_calls,
      expiresAt: life !== undefined ? this.now + life : Number.POSITIVE_INFINITY,
      scopes: granted,
    });
    const ttl = life ?? auth.ttl_calls;
    if (!auth.refresh) return { token, ttl, scopes: granted };
    const refreshToken = this.mint("refresh", "rt_{code}");
    // Under rotation the refresh token stands for the client (any scope may be asked on use).
    this.refreshTokens.set(
      refreshToken,
      auth.scheme === "refresh_rotation" ? [...(auth.default_scopes ?? auth.scopes)] : granted,
    );
    return { token, ttl, scopes: granted, refreshToken };
  }

  /**
   * Exchange a refresh token (single use) for a new access token, with its scopes or `scopes`;
   * undefined when it is not live. The storyline replayed before a task (`recording` off) starts
   * each position's session from the client's initial refresh token, as that position's own
   * session did, so the replay leaves it live for the agent's session.
   */
  refresh(
    refreshToken: string,
    scopes?: readonly string[],
  ): ReturnType<TrialWorld["issueToken"]> | undefined {
    const held = this.refreshTokens.get(refreshToken);
    if (!held) return undefined;
    const initial = refreshToken === this.world.auth.initial_refresh_token;
    if (this.recording || !initial) this.refreshTokens.delete(refreshToken);
    return this.issueToken(scopes ?? held);
  }

  /** Spend one call of a token: `ok`, or why it was refused. */
  spendToken(
    token: string,
    needScopes: readonly string[],
  ): "ok" | "unknown" | "expired" | { missing: string } {
    const state = this.tokens.get(token);
    if (!state) return this.staleTokens().has(token) ? "expired" : "unknown";
    if (state.callsLeft <= 0 || this.now >= state.expiresAt) return "expired";
    const missing = needScopes.find((s) => !state.scopes.includes(s));
    if (missing) return { missing };
    state.callsLeft -= 1;
    return "ok";
  }

  /**
   * Apply every pending change whose time has come (the clock at or past its `due`), in the order
   * they were scheduled; a change to a record since deleted is dropped.
   */
  settle(): void {
    if (this.pending.length === 0) return;
    const due = this.pending.filter((p) => p.due <= this.now);
    if (due.length === 0) return;
    this.pending.splice(0, this.pending.length, ...this.pending.filter((p) => p.due > this.now));
    for (const p of due) {
      const record = this.records.get(p.resource)?.find((r) => String(r[p.idField]) === p.id);
      if (record) Object.assign(record, p.changes);
    }
  }

  /** Delete a record of a resource, keeping it among the removed ones. */
  removeRecord(name: string, record: JsonObject): void {
    const list = this.resource(name);
    const at = list.indexOf(record);
    if (at < 0) return;
    list.splice(at, 1);
    const gone = this.removed.get(name);
    if (gone) gone.push(record);
    else this.removed.set(name, [record]);
  }

  resource(name: string): JsonObject[] {
    const list = this.records.get(name);
    if (!list) throw new Error(`world ${this.world.id}: route names unknown resource ${name}`);
    return list;
  }

  private staleTokens(): Set<string> {
    if (!this.staleTokenSet) {
      this.staleTokenSet = new Set(
        (this.world.auth.stale_tokens ?? []).map((t) => String(resolveCanaries(t, this.seed))),
      );
    }
    return this.staleTokenSet;
  }
}

export type { JsonValue };
