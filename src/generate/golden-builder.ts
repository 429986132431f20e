import type { JsonValue } from "../bank/json.js";
import { replacePlaceholders } from "../bank/placeholder-grammar.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { authScheme, credentialField, credentialHeader, tokenRequestBody } from "../world/credential.js";
import { tokenLifetime } from "../world/token-lifetime.js";
import type { ListingPage } from "./build-world.js";

/**
 * What a session knows about its token: calls it has left, when (on the logical clock) it expires,
 * the clock itself (every request ticks it by 1, plus any `x-apiflow-wait`), and whether the spec
 * was read. A chain passes one ledger from segment to segment.
 */
export interface TokenLedger {
  callsLeft: number;
  specRead?: boolean;
  /** Logical seconds since the session started, as of the last request. */
  now?: number;
  /** Clock value at which the current token expires (`Infinity` without time expiry). */
  expiresAt?: number;
  /**
   * Refresh-token rotation: the binding that holds the session's newest refresh token (the vault's
   * `refresh_token` until the first grant) and the one each grant captures the next into.
   */
  rotation?: Rotation;
}

/** Where a session's newest refresh token is, under refresh-token rotation. */
export interface Rotation {
  current: string;
  capture: string;
}

/** Options of one authenticated call. */
export interface CallOptions {
  /** Extra request headers (e.g. `if-match`, `Idempotency-Key`). */
  headers?: Record<string, string>;
  /** Logical seconds to wait before the call (`x-apiflow-wait`), e.g. to honour `Retry-After`. */
  wait?: number;
  /** Send with the segment's own token (see `mintOwn`), not the session's. */
  own?: boolean;
}

/** A token a segment mints for itself: with a scope the session's token lacks, and/or renewed by refresh grants. */
export interface OwnToken {
  scope?: string;
  /** Renew with `grant_type=refresh_token` (the newest refresh token) instead of client credentials. */
  refresh?: boolean;
}

type PlanItem =
  | { kind: "call"; step: GoldenStep & { op: "execute" }; wait: number; own: boolean }
  | { kind: "mint_own"; own: OwnToken; wait: number }
  | { kind: "raw"; step: GoldenStep; wait: number }
  | { kind: "other"; step: GoldenStep };

/**
 * Writes one position's golden solution. Binding names are namespaced by position (`p7_token`) so
 * a chain's golden, which runs every segment in one session, never reads a binding another segment
 * left behind. The builder tracks the token the way a careful agent reading `expires_in` does: the
 * authenticated calls it has spent and the logical clock (each request ticks it by 1; a wait adds
 * its seconds), and mints a fresh one exactly when the next call would find it expired.
 *
 * @example
 * const g = new GoldenBuilder(world, 3);
 * g.call("GET", "/v3/vessels/V-204", { firmware: "firmware_build" });
 * g.answer({ firmware_build: "firmware" });
 */
export class GoldenBuilder {
  readonly steps: GoldenStep[] = [];
  /** The same solution without its own token handling, for `chained`. */
  private readonly plan: PlanItem[] = [];
  private readonly ledger: TokenLedger = { callsLeft: 0, now: 0, expiresAt: 0 };
  private ownLedger: TokenLedger | null = null;
  /** One rotation per session: the session's token and an own token renew from the same refresh token. */
  private readonly rotation: Rotation;
  private own: OwnToken = {};
  /** How many tokens this solution minted (auth tasks assert re-minting). */
  mints = 0;

  constructor(
    private readonly world: World,
    private readonly position: number,
  ) {
    this.rotation = { current: "refresh_token", capture: this.b("rt") };
    this.ledger.rotation = this.rotation;
  }

  /** The namespaced binding name for a local name. */
  b(name: string): string {
    return `p${this.position}_${name}`;
  }

  /** `{{p7_name}}`, for URLs and bodies. */
  ref(name: string): string {
    return `{{${this.b(name)}}}`;
  }

  readSpec(): this {
    this.steps.push({ op: "read_spec" });
    this.plan.push({ kind: "other", step: { op: "read_spec" } });
    return this;
  }

  mint(): this {
    emitMint(this.world, this.steps, this.ledger, this.b("token"), 0);
    this.mints += 1;
    return this;
  }

  /**
   * Mint the segment's own token (a scope the session's token lacks, or one renewed by refresh
   * grants) for the calls marked `own`; `wait` seconds pass before the mint.
   */
  mintOwn(own: OwnToken, wait = 0): this {
    this.own = own;
    this.ownLedger = { callsLeft: 0, now: this.ledger.now ?? 0, expiresAt: 0, rotation: this.rotation };
    emitMint(this.world, this.steps, this.ownLedger, this.b("own"), wait, own, false);
    this.ledger.now = this.ownLedger.now;
    this.plan.push({ kind: "mint_own", own, wait });
    this.mints += 1;
    return this;
  }

  /** One authenticated call; `capture` maps local binding names to dotted response paths. */
  call(
    method: string,
    url: string,
    capture: Record<string, string> = {},
    body?: JsonValue,
    options: CallOptions = {},
  ): this {
    const wait = options.wait ?? 0;
    const own = options.own === true;
    const step = authedStep(this.world, method, url, body, options.headers, "TOKEN");
    step.capture = Object.fromEntries(Object.entries(capture).map(([k, v]) => [this.b(k), v]));
    this.plan.push({ kind: "call", step, wait, own });
    if (own && this.ownLedger) {
      this.ownLedger.now = this.ledger.now ?? 0;
      this.steps.push(...sendWith(this.world, this.ownLedger, step, this.b("own"), wait, this.own));
      this.ledger.now = this.ownLedger.now;
      return this;
    }
    const before = this.steps.length;
    this.steps.push(...sendWith(this.world, this.ledger, step, this.b("token"), wait));
    this.mints += this.steps.length - before - 1;
    return this;
  }

  /** A request sent as written (no token handling), e.g. a refresh-token grant; it ticks the clock. */
  raw(step: GoldenStep & { op: "execute" }, wait = 0): this {
    this.steps.push(step);
    this.ledger.now = (this.ledger.now ?? 0) + wait + 1;
    this.plan.push({ kind: "raw", step, wait });
    return this;
  }

  /**
   * The solution as one segment of a chain: one token shared by every segment (`ledger` carries
   * it from the segment before), minted again only when it would expire — what an agent working
   * through the chain in one session does; the spec is read once. The answer step is left out.
   */
  chained(ledger: TokenLedger): GoldenStep[] {
    const out: GoldenStep[] = [];
    ledger.rotation ??= { current: "refresh_token", capture: "chain_rt" };
    let own: TokenLedger | null = null;
    const ownBinding = this.b("own");
    for (const item of this.plan) {
      if (item.kind === "other") {
        if (item.step.op === "read_spec") {
          // One read of the spec serves the whole session.
          if (!ledger.specRead) out.push(item.step);
          ledger.specRead = true;
        } else out.push(item.step);
        continue;
      }
      if (item.kind === "raw") {
        out.push(item.step);
        ledger.now = (ledger.now ?? 0) + item.wait + 1;
        continue;
      }
      if (item.kind === "mint_own") {
        own = { callsLeft: 0, now: ledger.now ?? 0, expiresAt: 0, rotation: ledger.rotation };
        emitMint(this.world, out, own, ownBinding, item.wait, item.own, false);
        ledger.now = own.now;
        continue;
      }
      if (item.own && own) {
        own.now = ledger.now ?? 0;
        out.push(...sendWith(this.world, own, item.step, ownBinding, item.wait, this.own));
        ledger.now = own.now;
        continue;
      }
      out.push(...sendWith(this.world, ledger, item.step, "chain_token", item.wait));
    }
    return out;
  }

  /** Store a binding in a workspace variable. */
  store(variable: string, binding: string, scope: "local" | "global" = "local"): this {
    const step: GoldenStep = { op: "store", name: variable, scope, from: this.b(binding) };
    this.steps.push(step);
    this.plan.push({ kind: "other", step });
    return this;
  }

  /** End with the answer card: field → local binding name. */
  answer(fields: Record<string, string>): GoldenStep[] {
    this.steps.push({
      op: "answer",
      fields: Object.fromEntries(Object.entries(fields).map(([f, n]) => [f, this.b(n)])),
    });
    return this.steps;
  }
}

/** Whether the ledger's token is missing or would be expired for a call made after `wait` seconds. */
function expiresBefore(ledger: TokenLedger, wait: number): boolean {
  if (ledger.callsLeft <= 0) return true;
  const at = (ledger.now ?? 0) + wait + 1;
  return at >= (ledger.expiresAt ?? Number.POSITIVE_INFINITY);
}

/**
 * `step` sent with the ledger's token (bound as `binding`), minting (or refreshing) first when the
 * token would be expired by then. A wait that forces a new token goes on the mint: a careful agent
 * pauses, then takes a fresh token, then calls.
 */
function sendWith(
  world: World,
  ledger: TokenLedger,
  step: GoldenStep & { op: "execute" },
  binding: string,
  wait: number,
  own: OwnToken = {},
): GoldenStep[] {
  const out: GoldenStep[] = [];
  let callWait = wait;
  if (expiresBefore(ledger, wait)) {
    emitMint(world, out, ledger, binding, wait, own, own.refresh === true);
    callWait = 0;
  }
  ledger.callsLeft -= 1;
  ledger.now = (ledger.now ?? 0) + callWait + 1;
  const [name, value] = credentialHeader(world.auth, `{{${binding}}}`);
  const headers: Record<string, string> = { ...step.request.headers, [name]: value };
  if (callWait > 0) headers["x-apiflow-wait"] = String(callWait);
  out.push({ ...step, request: { ...step.request, headers } });
  return out;
}

function authedStep(
  world: World,
  method: string,
  url: string,
  body: JsonValue | undefined,
  extra: Record<string, string> | undefined,
  token: string,
): GoldenStep & { op: "execute" } {
  const [name, value] = credentialHeader(world.auth, token);
  const headers: Record<string, string> = { [name]: value };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  Object.assign(headers, extra ?? {});
  return {
    op: "execute",
    request: { method, url, headers, ...(body !== undefined ? { body } : {}) },
    capture: {},
  };
}

/**
 * Mint into `ledger` (bound as `binding`), `wait` seconds after the last request. With `refresh`
 * the token comes from `grant_type=refresh_token` and the newest refresh token (`<binding>_rt`);
 * an own token with `refresh` captures its refresh token either way.
 */
function emitMint(
  world: World,
  out: GoldenStep[],
  ledger: TokenLedger,
  binding: string,
  wait: number,
  own: OwnToken = {},
  refresh = false,
): void {
  const rotation = authScheme(world.auth) === "refresh_rotation" ? ledger.rotation : undefined;
  const step = rotation
    ? rotationStep(world, binding, rotation, own.scope)
    : refresh
      ? refreshStep(world, binding)
      : mintStep(world, binding, own.scope);
  if (step.op === "execute") {
    if (own.refresh) step.capture = { ...step.capture, [`${binding}_rt`]: "refresh_token" };
    if (wait > 0) step.request.headers = { ...step.request.headers, "x-apiflow-wait": String(wait) };
  }
  out.push(step);
  ledger.now = (ledger.now ?? 0) + wait + 1;
  ledger.callsLeft = world.auth.ttl_calls;
  const scopes = own.scope?.split(" ") ?? world.auth.default_scopes ?? world.auth.scopes;
  const life = tokenLifetime(world.auth, scopes);
  ledger.expiresAt = life !== undefined ? ledger.now + life : Number.POSITIVE_INFINITY;
}

function refreshStep(world: World, binding: string): GoldenStep {
  return {
    op: "execute",
    request: {
      method: "POST",
      url: world.auth.token_path,
      headers: { "Content-Type": "application/json" },
      body: { grant_type: "refresh_token", refresh_token: `{{${binding}_rt}}` },
    },
    capture: { [binding]: credentialField(world.auth) },
  };
}

function mintStep(world: World, binding: string, scope?: string): GoldenStep {
  return {
    op: "execute",
    request: {
      method: "POST",
      url: world.auth.token_path,
      headers: { "Content-Type": "application/json" },
      body: tokenRequestBody(world.auth, {
        clientId: "{{client_id}}",
        clientSecret: "{{client_secret}}",
        refreshToken: "",
        ...(scope !== undefined ? { scope } : {}),
      }),
    },
    capture: { [binding]: credentialField(world.auth) },
  };
}

/**
 * Refresh-token rotation: the grant spends the session's newest refresh token and captures the
 * next one over it (every later grant, by any token of the session, sends that one).
 */
function rotationStep(world: World, binding: string, rotation: Rotation, scope?: string): GoldenStep {
  const step: GoldenStep = {
    op: "execute",
    request: {
      method: "POST",
      url: world.auth.token_path,
      headers: { "Content-Type": "application/json" },
      body: {
        grant_type: "refresh_token",
        refresh_token: `{{${rotation.current}}}`,
        ...(scope !== undefined ? { scope } : {}),
      },
    },
    capture: { [binding]: "access_token", [rotation.capture]: "refresh_token" },
  };
  rotation.current = rotation.capture;
  return step;
}

/**
 * Read values of assets at known listing positions by walking the listing as `pages` says (see
 * `BuiltWorld.listPages`). `picks` maps a local binding name to `[index, field]`.
 */
export function readFromListing(
  gb: GoldenBuilder,
  pages: readonly ListingPage[],
  picks: Record<string, [number, string]>,
): void {
  for (const page of pages) {
    const capture: Record<string, string> = { ...page.capture };
    for (const [name, [index, fieldName]] of Object.entries(picks)) {
      const at = page.items.get(index);
      if (at !== undefined) capture[name] = `${at}.${fieldName}`;
    }
    const url = replacePlaceholders(page.url, (name) => gb.ref(name));
    gb.call("GET", url, capture);
  }
}
