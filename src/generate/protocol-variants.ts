import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { convertStep, type VariantProtocol } from "../world/protocol-step.js";
import { withoutVersioning } from "./world-versioning.js";

export type { VariantProtocol } from "../world/protocol-step.js";

export type VariantResult =
  | {
      success: true;
      data: {
        world: World;
        tasks: Task[];
        /** Tasks with no variant, and why (`SIGNED_NOT_CARRIED`). */
        skipped: Array<{ id: string; reason: string }>;
      };
    }
  | { success: false; error: { code: "unmapped_request"; path: string; message: string } };

const NOTES: Record<VariantProtocol, string> = {
  graphql:
    "Note: this API is served as GraphQL at POST /graphql. Every REST route named above is a field of the schema (its description names the route: `GET /v3/things/{id}` is a query field, writes are mutations, `issueToken` mints tokens); send the bearer token as the request's Authorization header. The schema is the workspace's spec entity.",
  mcp: "Note: this API is served as MCP tools at POST /mcp. Every REST route named above is a tool named after it (its description names the route; `issue_token` mints tokens); send the bearer token as the request's Authorization header. The tool list is the workspace's spec entity.",
};

/**
 * A ticket's claims that hold of the REST spec only. A GraphQL field and an MCP tool list every
 * argument they take (the registry's filter among them, with its allowed values), so "the spec
 * documents no parameter" is false there (agent audit 20: harbor-telemetry-graphql-sub01).
 */
const REST_ONLY_CLAIMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/The spec lists no parameters for it, and the (\S+) view/g, "The $1 view"],
  [/Nothing in the published spec says what it wants; we need/g, "We need"],
  [/ \(the parameter is undocumented\)/g, ""],
];

function withoutRestOnlyClaims(ticket: string): string {
  return REST_ONLY_CLAIMS.reduce((text, [claim, instead]) => text.replace(claim, instead), ticket);
}

function withNote(ticket: string, protocol: VariantProtocol): string {
  const marker = "\n\nWhen you have finished";
  const at = ticket.indexOf(marker);
  const note = `\n\n${NOTES[protocol]}`;
  return at < 0 ? `${ticket}${note}` : `${ticket.slice(0, at)}${note}${ticket.slice(at)}`;
}

/**
 * Why a task that signs a request has no GraphQL or MCP variant: the signature is an HMAC over the
 * REST method, target and body hash (see `src/world/request-signature.ts`), which a GraphQL
 * operation or an MCP tool call does not have, so the signed route would answer 401.
 */
export const SIGNED_NOT_CARRIED =
  "its golden signs a request, and a signature (over the REST method, target and body) cannot travel over GraphQL or MCP";

/**
 * The GraphQL or MCP variant of a generated world and its tasks: the same records, routes,
 * behaviours and storyline, served through one endpoint. Golden and setup steps are rewritten call
 * for call as protocol-native `execute_native` steps (`{protocol: "graphql", query, variables}`,
 * `{protocol: "mcp", tool, arguments}`) with capture paths moved to where the value sits in the
 * response the workspace stores, so the token budget, the clock and every
 * canary match the REST storyline. Graders are kept as they are: every operation is logged as the
 * REST exchange it stands for, so the same predicates hold. Ids get the protocol as a suffix
 * (`harbor-telemetry-graphql`, tasks `harbor-telemetry-graphql-sub03`). A task whose golden signs a
 * request gets no variant (`skipped`, `SIGNED_NOT_CARRIED`).
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
  const skipped: Array<{ id: string; reason: string }> = [];
  const variantId = (taskId: string) =>
    taskId.startsWith(`${world.id}-`)
      ? `${id}-${taskId.slice(world.id.length + 1)}`
      : `${taskId}.${protocol}`;
  // GraphQL fields and MCP tools are named, not versioned by path: no version carrier.
  const { versioning: _carried, ...served } = world;
  for (const original of tasks) {
    if (original.world !== world.id) continue;
    const task = withoutVersioning(original);
    if ([...task.setup, ...task.golden].some((s) => s.op === "execute" && s.request.sign)) {
      skipped.push({ id: variantId(task.id), reason: SIGNED_NOT_CARRIED });
      continue;
    }
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
      id: variantId(task.id),
      world: id,
      ticket: withNote(withoutRestOnlyClaims(task.ticket), protocol),
      setup: setup as GoldenStep[],
      golden: golden as GoldenStep[],
    });
  }
  return { success: true, data: { world: { ...served, id, protocol }, tasks: out, skipped } };
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
