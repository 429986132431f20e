import type { JsonObject, JsonValue } from "../bank/json.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { GRAPHQL_TOKEN_FIELD, graphqlFieldName } from "../world/graphql-schema.js";
import { MCP_TOKEN_TOOL } from "../world/mcp-world.js";
import { convertStep, type VariantProtocol } from "../world/protocol-step.js";
import { errorKeyPath } from "../world/reply.js";
import { routesOnPath } from "../world/route-path.js";

const GRAPHQL_PAGINATION: Record<string, string> = {
  after: "cursor",
  limit: "limit",
  offset: "offset",
  page: "page",
  perPage: "per_page",
};

/** The REST request of `route` with path parameters, query and body as the native call carried them. */
function restRequest(
  route: Route,
  args: Record<string, JsonValue>,
  headers: Record<string, string> | undefined,
): Extract<GoldenStep, { op: "execute" }>["request"] {
  const rest = { ...args };
  const path = route.path.replace(/\{([^}]+)\}/g, (_w, name: string) => {
    const v = rest[name];
    delete rest[name];
    return typeof v === "string" ? (v.startsWith("{{") ? v : encodeURIComponent(v)) : String(v);
  });
  const body = rest.body;
  delete rest.body;
  const query = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join("&");
  return {
    method: route.method,
    url: `${path}${query ? `?${query}` : ""}`,
    ...(headers ? { headers } : {}),
    ...(body !== undefined ? { body } : {}),
  };
}

/** A GraphQL capture path as the REST response path it stands for (`data.r.nodes.3.x` → `trucks.3.x`). */
function restCapturePath(world: World, target: Route | "token", path: string): string {
  const errors = "errors.0.extensions.errors";
  if (path === errors || path.startsWith(`${errors}.`))
    return `${errorKeyPath(world.errors, "errors")}${path.slice(errors.length)}`;
  const inner = path.replace(/^data\.r\.?/, "");
  if (target === "token" || target.action !== "list") return inner;
  if (inner === "nodes" || inner.startsWith("nodes.")) return `${target.resource}${inner.slice(5)}`;
  if (inner === "pageInfo.endCursor") return "next_cursor";
  if (inner === "totalCount") return "total";
  return inner;
}

/**
 * A GraphQL/MCP golden step as the REST step it was converted from (the inverse of the protocol
 * variants' `convertStep`), so the axis-blind rewrites, which read REST requests, apply to protocol
 * variants too. Null when the step is not one `convertStep` produces: it must convert back to
 * itself exactly.
 *
 * @example restOf(world, { op: "execute_native", request: { protocol: "mcp", tool: "get_vessel", arguments: { vessel_id: "V-1" } }, capture: {} }) // { op: "execute", request: { method: "GET", url: "/v3/vessels/V-1" }, capture: {} }
 */
export function restOf(world: World, step: GoldenStep): GoldenStep | null {
  if (step.op !== "execute_native") return step;
  const r = step.request;
  const headers = r.headers && Object.keys(r.headers).length ? r.headers : undefined;
  let target: Route | "token" | undefined;
  let request: Extract<GoldenStep, { op: "execute" }>["request"];
  let capture: Record<string, string>;
  if (r.protocol === "mcp") {
    const args = (r.arguments ?? {}) as Record<string, JsonValue>;
    target = r.tool === MCP_TOKEN_TOOL ? "token" : world.routes.find((x) => x.id === r.tool);
    if (!target) return null;
    request =
      target === "token"
        ? { method: "POST", url: world.auth.token_path, ...(headers ? { headers } : {}), body: args }
        : restRequest(target, args, headers);
    capture = Object.fromEntries(
      Object.entries(step.capture).map(([k, p]) => [k, p.replace(/^structuredContent\.body\./, "")]),
    );
  } else {
    const field = /\{\s*r:\s*([_A-Za-z][_0-9A-Za-z]*)/.exec(r.query)?.[1];
    target =
      field === GRAPHQL_TOKEN_FIELD ? "token" : world.routes.find((x) => graphqlFieldName(x.id) === field);
    if (!target) return null;
    const variables = (r.variables ?? {}) as JsonObject;
    const args: Record<string, JsonValue> = {};
    for (const [, name, v] of r.query.matchAll(/([_A-Za-z][_0-9A-Za-z]*): \$(v\d+)/g)) {
      const value = variables[v as string] ?? null;
      const key = name as string;
      if (target !== "token" && key === "input") args.body = value;
      else if (target !== "token" && target.pagination && GRAPHQL_PAGINATION[key])
        args[GRAPHQL_PAGINATION[key] as string] = typeof value === "number" ? String(value) : value;
      else args[key] = value;
    }
    request =
      target === "token"
        ? { method: "POST", url: world.auth.token_path, ...(headers ? { headers } : {}), body: args }
        : restRequest(target, args, headers);
    const t = target;
    capture = Object.fromEntries(
      Object.entries(step.capture).map(([k, p]) => [k, restCapturePath(world, t, p)]),
    );
  }
  const rest: GoldenStep = { op: "execute", request, capture };
  // Only an exact inverse is used: converted forward again, it must be the step itself.
  const back = convertStep(world, r.protocol as VariantProtocol, rest, "inverse");
  return JSON.stringify(back) === JSON.stringify(step) ? rest : null;
}

/**
 * A REST call with a verb no route of its path takes (the REST world answers it `405
 * method_not_allowed`), as a GraphQL/MCP client that copies it would send it: the operation the
 * variant's naming would give that verb on that path (`PUT` beside `update_zone` → tool
 * `put_zone`, field `putZone`), with the arguments the path's route takes. The variant serves no
 * such operation, so it answers with its protocol's own refusal (MCP `unknown_tool`, a GraphQL
 * validation error naming the fields it has), as REST answers 405: the error-recovery-blind agent
 * retries the client's wrong verb in the variant this way. Null when the call's path has no route,
 * or a route of that path takes its verb.
 *
 * @example refusedVerbCall(world, "mcp", { op: "execute", request: { method: "PUT", url: "/v3/farm/zones/z-1", body: {} }, capture: {} }) // tool "put_zone"
 */
export function refusedVerbCall(
  world: World,
  protocol: VariantProtocol,
  step: GoldenStep,
): Extract<GoldenStep, { op: "execute_native" }> | null {
  if (step.op !== "execute") return null;
  const method = step.request.method.toUpperCase();
  const onPath = routesOnPath(world.routes, step.request.url.split("?")[0] ?? "");
  if (onPath.length === 0 || onPath.some((r) => r.method === method)) return null;
  // The path's update route when it has one (a wrong update verb), else its first: its arguments.
  const route = onPath.find((r) => r.action === "update") ?? (onPath[0] as Route);
  const asRoute = convertStep(
    world,
    protocol,
    { ...step, request: { ...step.request, method: route.method } },
    "",
  );
  if (typeof asRoute === "string" || asRoute.op !== "execute_native") return null;
  const name = `${method.toLowerCase()}_${route.id.replace(/^[a-z]+_/, "")}`;
  const r = asRoute.request;
  if (r.protocol === "mcp") return { ...asRoute, request: { ...r, tool: name } };
  const field = graphqlFieldName(route.id);
  return {
    ...asRoute,
    request: {
      ...r,
      query: r.query.replace(`r: ${field}`, `r: ${graphqlFieldName(name)}`).replace(/^query\b/, "mutation"),
    },
  };
}
