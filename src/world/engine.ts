import type { Context } from "hono";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonObject, JsonValue } from "../bank/json.js";
import type { Route, World } from "../bank/world-schema.js";
import { renderOpenApi } from "./openapi.js";
import type { TrialWorld } from "./trial-world.js";

/** Request bodies larger than this are refused with 413 before parsing. */
export const MAX_BODY_BYTES = 256 * 1024;

type Env = {
  Bindings: { trial: TrialWorld };
  Variables: { body: JsonValue | null; bodyError: string | null };
};

/**
 * The one engine that serves every world. It is a single Hono app per world; the trial's state is
 * passed per request (`app.fetch(request, { trial })`), so the same object answers in-process and
 * over HTTP with byte-identical responses.
 *
 * @example
 * const app = createWorldApp(world);
 * const res = await app.fetch(new Request("http://world/v3/vessels"), { trial: new TrialWorld(world, seed) });
 */
export function createWorldApp(world: World): Hono<Env> {
  const app = new Hono<Env>();
  const spec = renderOpenApi(world);

  app.use("*", async (c, next) => {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
      c.set("body", null);
      c.set("bodyError", null);
      await logged(c, () =>
        errorResponse(c, 413, "payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`),
      );
      return;
    }
    const parsed = parseBody(text, c.req.header("content-type"));
    c.set("body", parsed.body);
    c.set("bodyError", parsed.error);
    await logged(c, next);
  });

  app.get("/openapi.json", (c) => json(c, 200, spec as unknown as JsonValue));

  app.post(world.auth.token_path, (c) => mintToken(c, world));

  for (const route of world.routes) {
    const honoPath = route.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1");
    app.on(route.method, honoPath, (c) => serveRoute(c, route));
  }

  app.notFound((c) => {
    const allowed = world.routes.filter((r) => pathMatches(r.path, c.req.path)).map((r) => r.method);
    if (allowed.length > 0) {
      c.header("allow", [...new Set(allowed)].join(", "));
      return errorResponse(
        c,
        405,
        "method_not_allowed",
        `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(", ")}`,
      );
    }
    return errorResponse(
      c,
      404,
      "not_found",
      `no route ${c.req.method} ${c.req.path}; the published routes are in /openapi.json`,
    );
  });

  app.onError((err, c) =>
    // A crash here is a bug in the engine; the agent still gets a truthful JSON answer.
    errorResponse(c, 500, "internal_error", `the world engine failed: ${err.message}`),
  );
  return app;
}

async function logged(c: Context<Env>, next: () => Promise<unknown> | Response): Promise<void> {
  const result = await next();
  if (result instanceof Response) c.res = result;
  const trial = c.env.trial;
  if (!trial.recording) return;
  const url = new URL(c.req.url);
  const responseText = await c.res.clone().text();
  let responseBody: JsonValue | null = null;
  try {
    responseBody = responseText ? (JSON.parse(responseText) as JsonValue) : null;
  } catch {
    responseBody = responseText;
  }
  trial.log.append({
    type: "exchange",
    protocol: "rest",
    method: c.req.method,
    url: url.pathname + url.search,
    request_headers: redactHeaders(c.req.raw.headers),
    request_body: c.get("body"),
    status: c.res.status,
    response_headers: Object.fromEntries(c.res.headers.entries()),
    response_body: responseBody,
  });
}

/** Header names lower-cased; credentials replaced by their scheme and a short digest. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers.entries()) {
    if (name === "authorization" || name === "x-api-key" || name === "cookie") {
      const [scheme, ...rest] = value.split(" ");
      const secret = rest.join(" ") || (scheme ?? "");
      out[name] = `${rest.length ? `${scheme} ` : ""}<redacted:${sha256Hex(secret).slice(0, 8)}>`;
    } else out[name] = value;
  }
  return out;
}

function parseBody(
  text: string,
  contentType: string | undefined,
): { body: JsonValue | null; error: string | null } {
  if (text === "") return { body: null, error: null };
  if (contentType?.includes("application/x-www-form-urlencoded")) {
    return { body: Object.fromEntries(new URLSearchParams(text).entries()), error: null };
  }
  try {
    return { body: JSON.parse(text) as JsonValue, error: null };
  } catch (e) {
    return { body: text, error: `request body is not valid JSON: ${(e as Error).message}` };
  }
}

function json(c: Context<Env>, status: number, body: JsonValue): Response {
  c.header("content-type", "application/json");
  return c.body(JSON.stringify(body), status as ContentfulStatusCode);
}

function errorResponse(
  c: Context<Env>,
  status: number,
  error: string,
  message: string,
  extra: JsonObject = {},
) {
  return json(c, status, { error, message, ...extra });
}

function mintToken(c: Context<Env>, world: World): Response {
  const bodyError = c.get("bodyError");
  if (bodyError) return errorResponse(c, 400, "invalid_request", bodyError);
  const body = c.get("body");
  const form = body !== null && typeof body === "object" && !Array.isArray(body) ? body : {};
  if (form.grant_type !== "client_credentials") {
    return errorResponse(
      c,
      400,
      "unsupported_grant_type",
      "this server supports grant_type=client_credentials only",
      {
        hint: "send JSON or form fields grant_type, client_id, client_secret",
      },
    );
  }
  if (form.client_id !== world.auth.client_id || form.client_secret !== world.auth.client_secret) {
    return errorResponse(c, 401, "invalid_client", "client_id or client_secret is wrong");
  }
  const { token, ttl, scopes } = c.env.trial.issueToken();
  return json(c, 200, {
    access_token: token,
    token_type: "Bearer",
    expires_in: ttl,
    scope: scopes.join(" "),
  });
}

function authorize(c: Context<Env>, route: Route): Response | null {
  if (!route.auth_required) return null;
  const header = c.req.header("authorization") ?? "";
  const tokenPath = c.env.trial.world.auth.token_path;
  const hint = `mint a fresh token with POST ${tokenPath} (grant_type=client_credentials) and send Authorization: Bearer <token>`;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!match) return errorResponse(c, 401, "missing_token", "this route needs a bearer token", { hint });
  const verdict = c.env.trial.spendToken(match[1] as string, route.scopes);
  if (verdict === "ok") return null;
  if (verdict === "unknown") {
    return errorResponse(c, 401, "invalid_token", "the bearer token is expired or was never issued", {
      hint,
    });
  }
  if (verdict === "expired")
    return errorResponse(c, 401, "token_expired", "the bearer token has expired", { hint });
  return errorResponse(c, 403, "insufficient_scope", `the token lacks scope ${verdict.missing}`, {
    required_scope: verdict.missing,
  });
}

function serveRoute(c: Context<Env>, route: Route): Response {
  for (const [name, value] of Object.entries(route.headers)) c.header(name, value);
  const denied = authorize(c, route);
  if (denied) return denied;
  const trial = c.env.trial;
  const resource = trial.world.resources[route.resource];
  if (!resource) throw new Error(`route ${route.id} names unknown resource ${route.resource}`);
  const records = trial.resource(route.resource);
  const show = (r: JsonObject): JsonObject => {
    const out: JsonObject = { ...r, ...route.view.overrides };
    for (const f of route.view.omit_fields) delete out[f];
    return out;
  };
  const idParam = resource.id_field;
  switch (route.action) {
    case "list":
      return json(c, 200, { [route.resource]: records.map(show), total: records.length });
    case "get": {
      const id = c.req.param(idParam);
      const record = records.find((r) => String(r[idParam]) === id);
      if (!record)
        return errorResponse(c, 404, "not_found", `no ${route.resource} record with ${idParam} '${id}'`);
      return json(c, 200, show(record));
    }
    case "create": {
      const bodyError = c.get("bodyError");
      if (bodyError) return errorResponse(c, 400, "invalid_json", bodyError);
      const body = c.get("body");
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        return errorResponse(c, 400, "invalid_body", "the request body must be a JSON object");
      }
      const missing = route.required_fields.filter(
        (f) => body[f] === undefined || body[f] === null || body[f] === "",
      );
      if (missing.length > 0) {
        return errorResponse(
          c,
          422,
          "validation_failed",
          `missing required field(s): ${missing.join(", ")}`,
          {
            missing,
          },
        );
      }
      const seq = trial.nextSeq(route.resource);
      const id = resource.id_template.includes("{canary}")
        ? trial.mint(
            `${route.resource}:id`,
            resource.id_template.replace("{canary}", "{code}").replace("{seq}", String(seq)),
          )
        : resource.id_template.replace("{seq}", String(seq).padStart(4, "0"));
      const record: JsonObject = { ...body, ...route.defaults, [idParam]: id };
      records.push(record);
      return json(c, 201, show(record));
    }
    case "update": {
      const id = c.req.param(idParam);
      const record = records.find((r) => String(r[idParam]) === id);
      if (!record)
        return errorResponse(c, 404, "not_found", `no ${route.resource} record with ${idParam} '${id}'`);
      const body = c.get("body");
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        return errorResponse(c, 400, "invalid_body", "the request body must be a JSON object");
      }
      Object.assign(record, body, { [idParam]: record[idParam] ?? id });
      return json(c, 200, show(record));
    }
    default:
      return errorResponse(c, 501, "not_implemented", `action ${route.action} is not served yet`);
  }
}

function pathMatches(template: string, path: string): boolean {
  const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
  return re.test(path);
}
