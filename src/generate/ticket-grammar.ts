import type { Rng } from "../bank/rng.js";
import { phraseError, spellCode } from "../world/reply.js";
import type { WorldTemplate } from "./world-template.js";

const tick = (s: string) => `\`${s}\``;

/** `a`, `b` and `c`. */
export function fieldList(fields: readonly string[]): string {
  const f = fields.map(tick);
  return f.length <= 1 ? (f[0] ?? "") : `${f.slice(0, -1).join(", ")} and ${f[f.length - 1]}`;
}

/**
 * The phrase grammar tickets are drawn from. Every ticket is failure-first (the broken call, the
 * truthful error it got, the outcome wanted, the constraints, the answer-card fields), and every
 * part has several phrasings, drawn from the storyline's seeded `Rng`, so that no two tickets read
 * alike even when two positions share a template.
 *
 * @example const g = new TicketGrammar(rng, template); g.opener() // "Ticket from the night dispatcher."
 */
export class TicketGrammar {
  constructor(
    private readonly rng: Rng,
    private readonly t: WorldTemplate,
  ) {}

  pick<T>(items: readonly T[]): T {
    return this.rng.pick(items);
  }

  reporter(): string {
    return this.pick(this.t.reporters);
  }

  system(): string {
    return this.pick(this.t.systems);
  }

  opener(): string {
    const who = this.reporter();
    return this.pick([
      `Ticket from ${who}.`,
      `${cap(who)} here.`,
      `Escalated by ${who}:`,
      `Raised by ${who} this morning.`,
      `Hand-over note from ${who}.`,
      `${cap(who)} asked me to file this.`,
      `Support case opened by ${who}.`,
      "",
    ]);
  }

  /** "`GET /v3/x/1` from the route planner" and its variants. */
  brokenCall(method: string, url: string): string {
    const sys = this.system();
    const call = tick(`${method} ${url}`);
    return this.pick([
      `${cap(sys)} sends ${call}`,
      `When ${sys} calls ${call}, it`,
      `The call ${call} made by ${sys}`,
      `Our ${call} (from ${sys})`,
      `${cap(sys)}'s request ${call}`,
    ]);
  }

  /** The error part, joined to `brokenCall`. */
  gotError(status: number, code: string, message?: string): string {
    const quoted = this.quoteError(status, code, message);
    return this.pick([
      ` gets back ${quoted}.`,
      ` answers ${quoted}.`,
      ` fails with ${quoted}.`,
      ` keeps returning ${quoted}.`,
    ]);
  }

  /**
   * An error as this world words it: "`422 VALIDATION_FAILED` ("Request refused: …")". Tickets
   * quote the error the agent will see, so the code and message go through the world's style.
   */
  quoteError(status: number, code: string, message?: string): string {
    const phrased = phraseError(this.t.errors, code, message ?? "", status);
    return `${tick(`${status} ${phrased.code}`)}${message ? ` ("${phrased.message}")` : ""}`;
  }

  /** An error code as this world spells it, for briefs: `rate_limited` or `RATE_LIMITED`. */
  code(code: string): string {
    return spellCode(this.t.errors, code);
  }

  /** A polite closing that asks for the card fields. */
  report(fields: readonly string[]): string {
    const list = fieldList(fields);
    return this.pick([
      `Report ${list}.`,
      `In your answer card give me ${list}.`,
      `I need ${list} back.`,
      `Put ${list} in the card.`,
      `Send back ${list}.`,
      `Tell me ${list}.`,
    ]);
  }

  stayCanonical(): string {
    const v = /\/(v\d+)/.exec(this.t.base)?.[1] ?? "v3";
    return this.pick([
      `Stay on the current ${v} routes.`,
      `Do not touch the deprecated or ${this.t.lookalike.audience} routes.`,
      `Only the published ${v} family is trusted.`,
      `Constraint: current ${v} API only.`,
    ]);
  }
}

export function cap(s: string): string {
  return s.length === 0 ? s : `${s[0]?.toUpperCase()}${s.slice(1)}`;
}

/** Join ticket parts with single spaces, dropping empty ones. */
export function sentence(...parts: Array<string | false | undefined>): string {
  return parts
    .filter((p): p is string => typeof p === "string" && p.length > 0)
    .join(" ")
    .replace(/\s+([.,:])/g, "$1");
}
