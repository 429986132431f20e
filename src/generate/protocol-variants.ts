import { SCRIPTED_AGENTS } from "../agents/scripted-agents.js";
import { type BankContent, bankFromContent } from "../bank/bank.js";
import type { JsonObject, JsonValue } from "../bank/json.js";
import { wholePlaceholder } from "../bank/placeholder-grammar.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { runTrial } from "../run/run-trial.js";
import { GRAPHQL_TOKEN_FIELD, graphqlFieldName } from "../world/graphql-schema.js";
import { MCP_TOKEN_TOOL } from "../world/mcp-world.js";
import { errorKeyPath } from "../world/reply.js";
import { matchRoute } from "../world/route-path.js";

/** A protocol a world can be re-served in. */
export type VariantProtocol = "graphql" | "mcp";

export type VariantResult =
  | { success: true; data: { world: World; tasks: Task[] } }
  | { success: false; error: { code: "unmapped_request"; path: string; message: string } };

/** The response key every converted GraphQL operation is aliased to, so capture paths are fixed. */
const ALIAS = "r";

interface Mapped {
  target: Route | "token";
  params: Record<string, string>;
  query: Array<[string, string]>;
}

/** Which route (or the token endpoint) a golden REST request calls, with its parameters (`matchRoute`'s rule). */
function mapRequest(world: World, method: string, url: string): Mapped | null {
  const [path = "", search = ""] = url.split("?", 2) as [string, string?];
  const query = [...new URLSearchParams(search)].map(([k, v]) => [k, v] as [string, string]);
  if (method.toUpperCase() === "POST" && path === world.auth.token_path)
    return { target: "token", params: {}, query };
  const hit = matchRoute(world.routes, method.toUpperCase(), path);
  if (!hit) return null;
  const params: Record<string, string> = {};
  for (const [name, s] of Object.entries(hit.params))
    params[name] = wholePlaceholder(s) !== null ? s : decodeURIComponent(s);
  return { target: hit.route, params, query };
}

/** `{{x}}` stays a string; a number-looking literal becomes a number (GraphQL Int arguments). */
function intValue(v: string): JsonValue {
  return /^-?\d+$/.test(v) ? Number(v) : v;
}

const GRAPHQL_PAGINATION: Record<string, { arg: string; type: "Int" | "String" }> = {
  cursor: { arg: "after", type: "String" },
  limit: { arg: "limit", type: "Int" },
  offset: { arg: "offset", type: "Int" },
  page: { arg: "page", type: "Int" },
  per_page: { arg: "perPage", type: "Int" },
};

function graphqlCall(m: Mapped, body: JsonValue | undefined): { query: string; variables: JsonObject } {
  const decl: string[] = [];
  const args: string[] = [];
  const variables: JsonObject = {};
  const add = (name: string, type: string, value: JsonValue) => {
    const v = `v${decl.length}`;
    decl.push(`$${v}: ${type}`);
    args.push(`${name}: $${v}`);
    variables[v] = value;
  };
  if (m.target === "token") {
    const form = (body ?? {}) as JsonObject;
    for (const [k, v] of Object.entries(form)) add(k, k === "grant_type" ? "String!" : "String", v);
    return {
      query: `mutation(${decl.join(", ")}) { ${ALIAS}: ${GRAPHQL_TOKEN_FIELD}(${args.join(", ")}) }`,
      variables,
    };
  }
  const route = m.target;
  for (const [k, v] of Object.entries(m.params)) add(k, "String!", v);
  for (const [k, v] of m.query) {
    const pg = route.pagination ? GRAPHQL_PAGINATION[k] : undefined;
    if (pg) add(pg.arg, pg.type, pg.type === "Int" ? intValue(v) : v);
    else add(k, "String", v);
  }
  if (body !== undefined && (route.action === "create" || route.action === "update"))
    add("input", "JSON!", body);
  const op = route.method === "GET" ? "query" : "mutation";
  const selection =
    route.action === "list" ? " { nodes totalCount notice pageInfo { hasNextPage endCursor } }" : "";
  const argText = args.length ? `(${args.join(", ")})` : "";
  return {
    query: `${op}${decl.length ? `(${decl.join(", ")})` : ""} { ${ALIAS}: ${graphqlFieldName(route.id)}${argText}${selection} }`,
    variables,
  };
}

/** Where a REST response path lives in the GraphQL answer (`trucks.3.x` → `data.r.nodes.3.x`). */
function graphqlCapturePath(world: World, m: Mapped, restPath: string): string {
  // A value read from an error (a validator's `errors`): GraphQL carries the error's fields in the
  // `extensions` of its one entry of `errors[]`.
  const errors = errorKeyPath(world.errors, "errors");
  if (restPath === errors || restPath.startsWith(`${errors}.`))
    return `errors.0.extensions.errors${restPath.slice(errors.length)}`;
  const prefix = `data.${ALIAS}`;
  if (m.target === "token" || m.target.action !== "list") return `${prefix}.${restPath}`;
  const [head, ...rest] = restPath.split(".");
  const tail = rest.length ? `.${rest.join(".")}` : "";
  if (head === m.target.resource) return `${prefix}.nodes${tail}`;
  if (head === "next_cursor") return `${prefix}.pageInfo.endCursor`;
  if (head === "total") return `${prefix}.totalCount`;
  return `${prefix}.${restPath}`;
}

/**
 * One golden REST step as the same call in `protocol` (an `execute_native` step), or a sentence
 * saying why it maps to no route. Certification's exploits use it to speak a variant world's protocol.
 *
 * @example convertStep(world, "mcp", { op: "execute", request: { method: "GET", url: "/v3/vessels/V-1" }, capture: {} }, "probe")
 */
export function convertStep(
  world: World,
  protocol: VariantProtocol,
  step: GoldenStep,
  where: string,
): GoldenStep | string {
  if (step.op !== "execute") return step;
  const { method, url, headers = {}, body } = step.request;
  const m = mapRequest(world, method, url);
  if (!m) return `${where}: ${method} ${url} matches no route of world ${world.id}`;
  // The workspace builds the carrier request (content type, JSON-RPC envelope); the REST headers
  // that mean something to the world (the bearer token, if-match, idempotency keys) travel as they are.
  const carried: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== "content-type") carried[k] = v;
  const withHeaders = Object.keys(carried).length ? { headers: carried } : {};
  if (protocol === "graphql") {
    const call = graphqlCall(m, body);
    return {
      op: "execute_native",
      request: { protocol: "graphql", query: call.query, variables: call.variables, ...withHeaders },
      capture: Object.fromEntries(
        Object.entries(step.capture).map(([k, p]) => [k, graphqlCapturePath(world, m, p)]),
      ),
    };
  }
  const args: JsonObject = {};
  if (m.target === "token") Object.assign(args, (body ?? {}) as JsonObject);
  else {
    Object.assign(args, m.params);
    for (const [k, v] of m.query) args[k] = v;
    if (body !== undefined) args.body = body;
  }
  return {
    op: "execute_native",
    request: {
      protocol: "mcp",
      tool: m.target === "token" ? MCP_TOKEN_TOOL : m.target.id,
      arguments: args,
      ...withHeaders,
    },
    // The workspace stores an MCP world's tool result (the JSON-RPC envelope taken off).
    capture: Object.fromEntries(
      Object.entries(step.capture).map(([k, p]) => [k, `structuredContent.body.${p}`]),
    ),
  };
}

const NOTES: Record<VariantProtocol, string> = {
  graphql:
    "Note: this API is served as GraphQL at POST /graphql. Every REST route named above is a field of the schema (its description names the route: `GET /v3/things/{id}` is a query field, writes are mutations, `issueToken` mints tokens); send the bearer token as the request's Authorization header. The schema is the workspace's spec entity.",
  mcp: "Note: this API is served as MCP tools at POST /mcp. Every REST route named above is a tool named after it (its description names the route; `issue_token` mints tokens); send the bearer token as the request's Authorization header. The tool list is the workspace's spec entity.",
};

function withNote(ticket: string, protocol: VariantProtocol): string {
  const marker = "\n\nWhen you have finished";
  const at = ticket.indexOf(marker);
  const note = `\n\n${NOTES[protocol]}`;
  return at < 0 ? `${ticket}${note}` : `${ticket.slice(0, at)}${note}${ticket.slice(at)}`;
}

/**
 * The GraphQL or MCP variant of a generated world and its tasks: the same records, routes,
 * behaviours and storyline, served through one endpoint. Golden and setup steps are rewritten call
 * for call as protocol-native `execute_native` steps (`{protocol: "graphql", query, variables}`,
 * `{protocol: "mcp", tool, arguments}`) with capture paths moved to where the value sits in the
 * response the workspace stores, so the token budget, the clock and every
 * canary match the REST storyline. Graders are kept as they are: every operation is logged as the
 * REST exchange it stands for, so the same predicates hold. Ids get the protocol as a suffix
 * (`harbor-telemetry-graphql`, tasks `harbor-telemetry-graphql-sub03`).
 *
 * @example const v = protocolVariant(world, tasks, "graphql"); if (v.success) bank.worlds.push(v.data.world);
 */
export function protocolVariant(
  world: World,
  tasks: readonly Task[],
  protocol: VariantProtocol,
): VariantResult {
  const id = `${world.id}-${protocol}`;
  const out: Task[] = [];
  for (const task of tasks) {
    if (task.world !== world.id) continue;
    const convert = (steps: readonly GoldenStep[], part: string): GoldenStep[] | string => {
      const converted: GoldenStep[] = [];
      for (const [i, step] of steps.entries()) {
        const c = convertStep(world, protocol, step, `${task.id}.${part}[${i}]`);
        if (typeof c === "string") return c;
        converted.push(c);
      }
      return converted;
    };
    const setup = convert(task.setup, "setup");
    const golden = convert(task.golden, "golden");
    for (const r of [setup, golden]) {
      if (typeof r === "string") {
        return {
          success: false,
          error: { code: "unmapped_request", path: r.split(":")[0] as string, message: r },
        };
      }
    }
    out.push({
      ...task,
      id: task.id.startsWith(`${world.id}-`)
        ? `${id}-${task.id.slice(world.id.length + 1)}`
        : `${task.id}.${protocol}`,
      world: id,
      ticket: withNote(task.ticket, protocol),
      setup: setup as GoldenStep[],
      golden: golden as GoldenStep[],
    });
  }
  return { success: true, data: { world: { ...world, id, protocol }, tasks: out } };
}

/** How `apiflow generate --protocols` checks each variant task: the golden passes and the blank fails. */
export const PROTOCOL_VARIANT_GATE = { name: "protocol_variant_replay", version: "1.0.0" } as const;

export interface ProtocolVariantsOutcome {
  worlds: World[];
  tasks: Task[];
  /** Variant tasks left out, with why (a world that does not map, a golden that fails, a blank that passes). */
  dropped: Array<{ id: string; reason: string }>;
  gate: { name: string; version: string; checked: number; passed: number };
}

/**
 * The GraphQL and/or MCP variants of every world of a (certified) REST bank, each variant task
 * replayed once: its golden must pass and the blank must fail, or it is dropped (with its reason).
 * The REST bank's own gates are not re-run on variants: they translate certified tasks call for
 * call and keep their graders.
 *
 * @example const v = await protocolVariants(content, ["graphql", "mcp"]); writeBank(dir, { ...content, worlds: [...content.worlds, ...v.worlds], tasks: [...content.tasks, ...v.tasks] });
 */
export async function protocolVariants(
  content: BankContent,
  protocols: readonly VariantProtocol[],
): Promise<ProtocolVariantsOutcome> {
  const worlds: World[] = [];
  const candidates: Task[] = [];
  const dropped: ProtocolVariantsOutcome["dropped"] = [];
  for (const protocol of protocols) {
    for (const world of content.worlds) {
      if ((world.protocol ?? "rest") !== "rest") continue;
      const v = protocolVariant(world, content.tasks, protocol);
      if (!v.success) {
        dropped.push({ id: `${world.id}-${protocol}`, reason: v.error.message });
        continue;
      }
      worlds.push(v.data.world);
      candidates.push(...v.data.tasks);
    }
  }
  const bank = bankFromContent({ ...content, worlds, tasks: candidates });
  const { golden, blank } = SCRIPTED_AGENTS;
  if (!golden || !blank) throw new Error("the golden and blank agents are missing");
  const tasks: Task[] = [];
  for (const task of bank.tasks) {
    const g = await runTrial({ bank, task, agent: golden, epoch: 1 });
    if (!g.grade.passed) {
      dropped.push({ id: task.id, reason: `the golden fails: ${g.grade.failure_reason}` });
      continue;
    }
    const b = await runTrial({ bank, task, agent: blank, epoch: 1 });
    if (b.grade.passed) {
      dropped.push({ id: task.id, reason: "the blank exam passes" });
      continue;
    }
    tasks.push(task);
  }
  return {
    // Every world that maps is kept, as the REST bank keeps a world whose tasks were all dropped.
    worlds,
    tasks,
    dropped,
    gate: { ...PROTOCOL_VARIANT_GATE, checked: candidates.length, passed: tasks.length },
  };
}

/**
 * `--protocols graphql,mcp` as a list, or a one-line error.
 *
 * @example parseProtocols("graphql,mcp") // { success: true, data: ["graphql", "mcp"] }
 */
export function parseProtocols(
  list: string,
):
  | { success: true; data: VariantProtocol[] }
  | { success: false; error: { code: "bad_protocol"; message: string } } {
  const items = list
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const bad = items.find((p) => p !== "graphql" && p !== "mcp");
  if (bad !== undefined || items.length === 0)
    return {
      success: false,
      error: {
        code: "bad_protocol",
        message: `--protocols takes graphql, mcp or graphql,mcp, got ${JSON.stringify(list)}`,
      },
    };
  return { success: true, data: [...new Set(items as VariantProtocol[])] };
}

/**
 * A REST bank with protocol variants: added to it as more worlds and tasks (`separate` false), or
 * as a bank of their own named `<name>-protocols` beside it (`separate` true). The REST bank's
 * worlds and tasks are unchanged either way.
 *
 * @example const { rest, variants } = await withProtocolVariants(content, ["graphql"], true);
 */
export async function withProtocolVariants(
  content: BankContent,
  protocols: readonly VariantProtocol[],
  separate: boolean,
): Promise<{ rest: BankContent; variants: BankContent | null; dropped: ProtocolVariantsOutcome["dropped"] }> {
  const v = await protocolVariants(content, protocols);
  if (separate) {
    return {
      rest: content,
      variants: {
        ...content,
        name: `${content.name}-protocols`,
        worlds: v.worlds,
        tasks: v.tasks,
        gates: [v.gate],
      },
      dropped: v.dropped,
    };
  }
  return {
    rest: {
      ...content,
      worlds: [...content.worlds, ...v.worlds],
      tasks: [...content.tasks, ...v.tasks],
      gates: [...(content.gates ?? []), v.gate],
    },
    variants: null,
    dropped: v.dropped,
  };
}
