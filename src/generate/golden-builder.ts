import type { JsonValue } from "../bank/json.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import type { ListingPage } from "./build-world.js";

/**
 * Writes one position's golden solution. Binding names are namespaced by position (`p7_token`) so
 * a chain's golden, which runs every segment in one session, never reads a binding another segment
 * left behind. The builder counts the authenticated calls each token has spent and mints a fresh
 * one exactly when the world's TTL would expire it, as a careful agent reading `expires_in` does.
 *
 * @example
 * const g = new GoldenBuilder(world, 3);
 * g.call("GET", "/v3/vessels/V-204", { firmware: "firmware_build" });
 * g.answer({ firmware_build: "firmware" });
 */
export class GoldenBuilder {
  readonly steps: GoldenStep[] = [];
  /** The same solution without its own token handling, for `chained`. */
  private readonly plan: Array<{ call: true; step: GoldenStep } | { call: false; step: GoldenStep }> = [];
  private callsLeft = 0;
  /** How many tokens this solution minted (auth tasks assert re-minting). */
  mints = 0;

  constructor(
    private readonly world: World,
    private readonly position: number,
  ) {}

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
    this.plan.push({ call: false, step: { op: "read_spec" } });
    return this;
  }

  mint(): this {
    this.steps.push(mintStep(this.world, this.b("token")));
    this.callsLeft = this.world.auth.ttl_calls;
    this.mints += 1;
    return this;
  }

  /** One authenticated call; `capture` maps local binding names to dotted response paths. */
  call(method: string, url: string, capture: Record<string, string> = {}, body?: JsonValue): this {
    if (this.callsLeft === 0) this.mint();
    this.callsLeft -= 1;
    const headers: Record<string, string> = { Authorization: `Bearer ${this.ref("token")}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const step: GoldenStep = {
      op: "execute",
      request: { method, url, headers, ...(body !== undefined ? { body } : {}) },
      capture: Object.fromEntries(Object.entries(capture).map(([k, v]) => [this.b(k), v])),
    };
    this.steps.push(step);
    this.plan.push({ call: true, step });
    return this;
  }

  /**
   * The solution as one segment of a chain: one token shared by every segment (`ledger` carries
   * its remaining calls from the segment before), minted again only when it would expire — what
   * an agent working through the chain in one session does; the spec is read once. The answer
   * step is left out.
   */
  chained(ledger: { callsLeft: number; specRead?: boolean }): GoldenStep[] {
    const out: GoldenStep[] = [];
    for (const item of this.plan) {
      if (item.step.op === "read_spec") {
        // One read of the spec serves the whole session.
        if (!ledger.specRead) out.push(item.step);
        ledger.specRead = true;
        continue;
      }
      if (!item.call || item.step.op !== "execute") {
        out.push(item.step);
        continue;
      }
      if (ledger.callsLeft === 0) {
        out.push(mintStep(this.world, "chain_token"));
        ledger.callsLeft = this.world.auth.ttl_calls;
      }
      ledger.callsLeft -= 1;
      const headers = { ...item.step.request.headers, Authorization: "Bearer {{chain_token}}" };
      out.push({ ...item.step, request: { ...item.step.request, headers } });
    }
    return out;
  }

  /** Store a binding in a workspace variable. */
  store(variable: string, binding: string, scope: "local" | "global" = "local"): this {
    const step: GoldenStep = { op: "store", name: variable, scope, from: this.b(binding) };
    this.steps.push(step);
    this.plan.push({ call: false, step });
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

function mintStep(world: World, binding: string): GoldenStep {
  return {
    op: "execute",
    request: {
      method: "POST",
      url: world.auth.token_path,
      headers: { "Content-Type": "application/json" },
      body: {
        grant_type: "client_credentials",
        client_id: "{{client_id}}",
        client_secret: "{{client_secret}}",
      },
    },
    capture: { [binding]: "access_token" },
  };
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
    const url = page.url.replace(/\{\{(\w+)\}\}/g, (_m, c: string) => gb.ref(c));
    gb.call("GET", url, capture);
  }
}
