import type { JsonObject, JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import type { EventLog } from "../world/event-log.js";
import type { WorldTransport } from "../world/transport.js";
import type { Parsed } from "./entity-ref.js";
import { type Scope, ScopeSchema } from "./tool-definitions.js";
import { SPEC_IDS, worldSpec } from "./world-spec.js";

export interface WorkspaceOptions {
  world: World;
  transport: WorldTransport;
  log: EventLog;
  variables: {
    vault: Record<string, JsonValue>;
    local: Record<string, JsonValue>;
    global: Record<string, JsonValue>;
  };
  /** Characters of the response body shown in `execute`'s preview. */
  previewChars?: number;
}

/** A stored response entity: its request's id and the exchange as the agent may read it. */
export interface StoredResponse {
  parent: string;
  status: number;
  headers: Record<string, string>;
  body: JsonValue | null;
}

/** The order a bare variable name is looked up in. */
export const SCOPE_ORDER: Scope[] = ["vault", "local", "global"];

/**
 * One trial's entities: variables in three scopes, requests, responses, handles, the spec, and
 * the id counters. The tools (`tools/*.ts`) read and change it; the `Workspace` dispatches to them.
 * Stored entities are replaced, never changed in place, so a copy may share them.
 */
export class WorkspaceState {
  readonly vars: Record<Scope, Map<string, JsonValue>>;
  readonly requests = new Map<string, JsonObject>();
  readonly responses = new Map<string, StoredResponse>();
  readonly handles = new Map<string, JsonObject>();
  readonly spec: JsonObject;
  private seq = 0;
  private rpcSeq = 0;

  constructor(readonly opts: WorkspaceOptions) {
    this.vars = {
      vault: new Map(Object.entries(opts.variables.vault)),
      local: new Map(Object.entries(opts.variables.local)),
      global: new Map(Object.entries(opts.variables.global)),
    };
    this.spec = worldSpec(opts.world);
  }

  /** Copy every entity and counter of this state into `to` (a fresh state). */
  copyInto(to: WorkspaceState): void {
    for (const scope of SCOPE_ORDER) for (const [k, v] of this.vars[scope]) to.vars[scope].set(k, v);
    for (const [k, v] of this.requests) to.requests.set(k, v);
    for (const [k, v] of this.responses) to.responses.set(k, v);
    for (const [k, v] of this.handles) to.handles.set(k, v);
    to.seq = this.seq;
    to.rpcSeq = this.rpcSeq;
  }

  /** A bare variable name: vault, then local, then global. */
  lookupVariable(name: string): { scope: Scope; value: JsonValue } | null {
    for (const scope of SCOPE_ORDER) {
      const v = this.vars[scope];
      if (v.has(name)) return { scope, value: v.get(name) as JsonValue };
    }
    return null;
  }

  /** The spec entity's id for this world's protocol. */
  get specId(): string {
    return SPEC_IDS[this.opts.world.protocol ?? "rest"];
  }

  /** The next entity id: `req-0001`, `resp-0002`, … (one counter for all kinds). */
  nextId(prefix: string): string {
    this.seq += 1;
    return `${prefix}-${String(this.seq).padStart(4, "0")}`;
  }

  /** The next JSON-RPC id of an MCP call. */
  nextRpcId(): number {
    this.rpcSeq += 1;
    return this.rpcSeq;
  }
}

/** A tool's optional `scope` argument: one of vault, local, global, or absent. */
export function parseScope(raw: unknown): Parsed<Scope | undefined> {
  if (raw === undefined || raw === null || raw === "") return { success: true, data: undefined };
  const s = ScopeSchema.safeParse(raw);
  if (!s.success) {
    return {
      success: false,
      error: {
        code: "bad_scope",
        message: `scope ${JSON.stringify(raw)} is not one of vault, local, global`,
      },
    };
  }
  return { success: true, data: s.data };
}

/** The arguments of one tool call, already parsed to an object. */
export type ToolArgs = Record<string, unknown>;
