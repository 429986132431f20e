import { z } from "zod";
import { JsonValueSchema } from "../bank/json.js";

/**
 * The trial's event log: every request the world served with its response, and every variable
 * write. G1 predicates read only this. `seq` is a logical clock shared by both kinds of event.
 */
export const ExchangeEventSchema = z.strictObject({
  type: z.literal("exchange"),
  seq: z.number().int().nonnegative(),
  protocol: z.enum(["rest", "graphql", "mcp"]).default("rest"),
  method: z.string(),
  /**
   * Path and query in canonical form (see `canonical-request.ts`), e.g. `/v3/vessels?page=2`: what
   * the router routed by and every predicate matches. The host is not part of the world.
   */
  url: z.string(),
  /** The path and query as the client wrote them, when that differs from `url`. */
  raw_url: z.string().optional(),
  /** Request headers, lower-cased names, with `authorization` redacted to its scheme and a digest. */
  request_headers: z.record(z.string(), z.string()),
  request_body: JsonValueSchema.nullable(),
  status: z.number().int(),
  response_headers: z.record(z.string(), z.string()),
  response_body: JsonValueSchema.nullable(),
});
export type ExchangeEvent = z.infer<typeof ExchangeEventSchema>;

export const VariableWriteEventSchema = z.strictObject({
  type: z.literal("variable_write"),
  seq: z.number().int().nonnegative(),
  scope: z.enum(["vault", "local", "global"]),
  name: z.string(),
  value: JsonValueSchema,
});
export type VariableWriteEvent = z.infer<typeof VariableWriteEventSchema>;

export const TrialEventSchema = z.discriminatedUnion("type", [ExchangeEventSchema, VariableWriteEventSchema]);
export type TrialEvent = z.infer<typeof TrialEventSchema>;

type WithoutSeq<T> = T extends unknown ? Omit<T, "seq"> : never;

/** Append-only log of one trial. */
export class EventLog {
  private readonly list: TrialEvent[] = [];

  append(event: WithoutSeq<TrialEvent>): TrialEvent {
    const full = { ...event, seq: this.list.length } as TrialEvent;
    this.list.push(full);
    return full;
  }

  /** A copy holding the events so far (events are never changed once appended, so they are shared). */
  fork(): EventLog {
    const copy = new EventLog();
    copy.list.push(...this.list);
    return copy;
  }

  get events(): readonly TrialEvent[] {
    return this.list;
  }

  exchanges(): ExchangeEvent[] {
    return this.list.filter((e): e is ExchangeEvent => e.type === "exchange");
  }

  variableWrites(): VariableWriteEvent[] {
    return this.list.filter((e): e is VariableWriteEvent => e.type === "variable_write");
  }
}
