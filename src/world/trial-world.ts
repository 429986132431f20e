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
 * Records are copied on write: a fork shares its records (and their lists) with the trial it was
 * forked from, and whichever of the two first changes one changes its own copy (`writable`,
 * `addRecord`, `removeRecord`). Route logic never changes a record in place otherwise.
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
  private readonly refreshTokens: Map<string, string[]>;
  private readonly counters: Map<string, number>;
  // Resolving canaries is a pure function of the seed: forks share the cache.
  private readonly resolvedCache: Map<string, JsonValue>;
  private staleTokenSet: Set<string> | undefined;
  readonly jobs = new Map<string, JobState>();
  readonly throttles: Map<string, number>;
  readonly staged: Map<string, StagedWrite>;
  readonly replies: Map<string, StoredReply>;
  /** Changes the world makes later, in the order they were scheduled (see `settle`). */
  readonly pending: PendingChange[];
  /**
   * Records deleted during the trial (setup replay included), by resource, in deletion order: a
   * record reference still names a record a later step deleted (the run opened, then superseded).
   */
  readonly removed: Map<string, JsonObject[]>;
  /**
   * The records and record lists (of `records` and `removed`) this trial made or copied since it
   * was last forked: only these are changed in place. Everything else may be shared with a fork.
   */
  private owned = new Set<object>();

  constructor(
    readonly world: World,
    readonly seed: string,
    from?: TrialWorld,
  ) {
    if (from) {
      // Records, their lists, staged writes, pending changes and stored replies are shared (a
      // record is copied when first written, the rest are never changed in place); tokens and jobs
      // change in place, so each trial has its own.
      from.owned = new Set();
      this.log = from.log.fork();
      this.records = new Map(from.records);
      this.removed = new Map(from.removed);
      this.now = from.now;
      for (const [k, v] of from.tokens) this.tokens.set(k, { ...v });
      this.refreshTokens = new Map(from.refreshTokens);
      this.counters = new Map(from.counters);
      this.resolvedCache = from.resolvedCache;
      this.staleTokenSet = from.staleTokenSet;
      for (const [k, v] of from.jobs) this.jobs.set(k, { ...v });
      this.throttles = new Map(from.throttles);
      this.staged = new Map(from.staged);
      this.replies = new Map(from.replies);
      this.pending = from.pending.slice();
      this.recording = from.recording;
      this.hints = from.hints;
      this.terseRoutes = from.terseRoutes;
      return;
    }
    this.log = new EventLog();
    this.records = new Map();
    this.removed = new Map();
    this.refreshTokens = new Map();
    this.counters = new Map();
    this.resolvedCache = new Map();
    this.throttles = new Map();
    this.staged = new Map();
    this.replies = new Map();
    this.pending = [];
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
   * state a golden run reached instead of replaying the run again. The two share their records
   * until either writes one (see `writable`), so a fork costs little whatever the world's size.
   *
   * @example const copy = trial.fork(); copy.tick(); copy.clock === trial.clock + 1
   */
  fork(): TrialWorld {
    return new TrialWorld(this.world, this.seed, this);
  }

  /**
   * `record` of resource `name` as this trial may change it in place: the record itself when this
   * trial made its copy since the last fork, else a copy that takes its place (in the resource, and
   * as the record of a job or staged write that named it). Every in-place change of a record goes
   * through here.
   *
   * @example Object.assign(trial.writable("valves", valve), { zone: "B" })
   */
  writable(name: string, record: JsonObject): JsonObject {
    if (this.owned.has(record)) return record;
    const copy = { ...record };
    const list = this.ownList(this.records, name);
    const at = list.indexOf(record);
    if (at >= 0) list[at] = copy;
    for (const job of this.jobs.values()) if (job.record === record) job.record = copy;
    for (const [key, write] of this.staged)
      if (write.record === record) this.staged.set(key, { ...write, record: copy });
    this.owned.add(copy);
    return copy;
  }

  /**
   * `record` as a reply shows it, unchanged: from now on the reply (and the log, and the agent's
   * workspace) holds it too, so a later write copies it first.
   */
  expose(record: JsonObject): JsonObject {
    if (this.owned.size > 0) this.owned.delete(record);
    return record;
  }

  /** Append a record to resource `name`. */
  addRecord(name: string, record: JsonObject): void {
    this.resource(name); // an unknown resource is a bug, named
    this.ownList(this.records, name).push(record);
  }

  /** `lists`'s list `name` as this trial may change it (copied first when shared). */
  private ownList(lists: Map<string, JsonObject[]>, name: string): JsonObject[] {
    const list = lists.get(name);
    if (list && this.owned.has(list)) return list;
    const copy = list ? list.slice() : [];
    lists.set(name, copy);
    this.owned.add(copy);
    return copy;
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
      if (record) Object.assign(this.writable(p.resource, record), p.changes);
    }
  }

  /** Delete a record of a resource, keeping it among the removed ones. */
  removeRecord(name: string, record: JsonObject): void {
    if (!this.resource(name).includes(record)) return;
    const list = this.ownList(this.records, name);
    list.splice(list.indexOf(record), 1);
    this.ownList(this.removed, name).push(record);
  }

  /** The records of resource `name`, to read: they change through `writable`, `addRecord`, `removeRecord`. */
  resource(name: string): readonly JsonObject[] {
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
