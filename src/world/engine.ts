import { METHODS } from "node:http";
import type { Context } from "hono";
import { Hono } from "hono";
import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { mintTokenReply } from "./auth.js";
import { renderOpenApi } from "./openapi.js";
import { mountProtocolWorld } from "./protocol-world.js";
import { fail, ok, type Reply, styleReply } from "./reply.js";
import { type BodyError, serveRoute } from "./serve-route.js";
import { MAX_WAIT_SECONDS, type TrialWorld } from "./trial-world.js";

/** Request bodies larger than this are refused with 413 before parsing. */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * The answer to a request whose method HTTP does not know. Node's parser refuses such requests
 * before the app sees them, so `serveTrialWorld` sends these same bytes; in-process does too.
 */
export const UNPARSEABLE_REQUEST = {
  error: "bad_request",
  message: "the request method or request line is not valid HTTP",
} as const;
const KNOWN_METHODS = new Set(METHODS);

/** The request header an agent sends to let logical time pass before its request (see world-schema). */
export const WAIT_HEADER = "x-apiflow-wait";

type Env = {
  Bindings: { trial: TrialWorld };
  Variables: { body: JsonValue | null; bodyError: BodyError | null; url: URL };
};
/** The engine app's environment, for the GraphQL and MCP endpoints mounted on it. */
export type WorldAppEnv = Env;

/**
 * The one engine that serves every world. It is a single Hono app per world; the trial's state is
 * passed per request (`app.fetch(request, { trial })`), so the same object answers in-process and
 * over HTTP with byte-identical responses. Route logic lives in `serveRoute` and returns data
 * (`Reply`); this file only reads requests, writes responses and logs the exchange.
 *
 * @example
 * const app = createWorldApp(world);
 * const res = await app.fetch(new Request("http://world/v3/vessels"), { trial: new TrialWorld(world, seed) });
 */
export function createWorldApp(world: World): Hono<Env> {
  const app = new Hono<Env>();
  const spec = renderOpenApi(world) as unknown as JsonValue;
  const templates = world.routes.map((r) => ({
    method: r.method,
    re: new RegExp(`^${r.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));

  app.use("*", async (c, next) => {
    const early = await readRequest(c);
    if (early) {
      c.res = respond(c, early);
      return;
    }
    await next();
  });

  // A GraphQL or MCP world serves its routes through one endpoint instead (src/world/protocol-world.ts).
  if (world.protocol === "graphql" || world.protocol === "mcp") {
    mountProtocolWorld(app, world);
    return app;
  }

  app.get("/openapi.json", (c) => respond(c, ok(200, spec)));

  app.post(world.auth.token_path, (c) => {
    const bodyError = c.get("bodyError");
    if (bodyError) return respond(c, fail(bodyError.status, bodyError.error, bodyError.message));
    return respond(c, mintTokenReply(c.env.trial, c.get("body")));
  });

  for (const route of world.routes) {
    const honoPath = route.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1");
    app.on(route.method, honoPath, (c) => {
      const url = requestUrl(c);
      return respond(
        c,
        serveRoute(c.env.trial, route, {
          url,
          params: c.req.param() as Record<string, string>,
          header: (name) => c.req.header(name),
          body: c.get("body"),
          bodyError: c.get("bodyError"),
        }),
      );
    });
  }

  app.notFound((c) => {
    const path = c.req.path;
    const allowed = [...new Set(templates.filter((t) => t.re.test(path)).map((t) => t.method))];
    if (allowed.length > 0) {
      return respond(
        c,
        fail(
          405,
          "method_not_allowed",
          `${c.req.method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`,
          {},
          { allow: allowed.join(", ") },
        ),
      );
    }
    return respond(
      c,
      fail(404, "not_found", `no route ${c.req.method} ${path}; the published routes are in /openapi.json`),
    );
  });

  app.onError((err, c) =>
    // A crash here is a bug in the world or the engine; the agent still gets a truthful JSON answer.
    respond(c, fail(500, "internal_error", `the world engine failed: ${err.message}`)),
  );
  return app;
}

/**
 * Advance the clock, read and parse the body. Returns a reply when the request must be refused
 * before routing (bad wait header, body too large); body problems that only matter to routes that
 * read a body are left in `bodyError`.
 */
async function readRequest(c: Context<Env>): Promise<Reply | null> {
  const trial = c.env.trial;
  c.set("body", null);
  c.set("bodyError", null);
  const wait = c.req.header(WAIT_HEADER);
  let waitError: Reply | null = null;
  if (wait !== undefined) {
    const seconds = /^\d{1,4}$/.test(wait.trim()) ? Number(wait.trim()) : Number.NaN;
    if (Number.isInteger(seconds) && seconds <= MAX_WAIT_SECONDS) trial.advance(seconds);
    else {
      waitError = fail(
        400,
        "invalid_wait",
        `${WAIT_HEADER} must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}, got ${JSON.stringify(wait)}`,
      );
    }
  }
  trial.tick();
  // Unstyled: the HTTP transport sends these same bytes before any world sees the request.
  if (!KNOWN_METHODS.has(c.req.method)) return ok(400, { ...UNPARSEABLE_REQUEST });
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return tooLarge();
  const method = c.req.method;
  const text =
    method === "GET" || method === "HEAD" ? "" : (handedBodies.get(c.req.raw) ?? (await c.req.text()));
  if (text.length > MAX_BODY_BYTES / 4 && Buffer.byteLength(text) > MAX_BODY_BYTES) return tooLarge();
  if (waitError) return waitError;
  if (text === "") return null;
  const parsed = parseBody(text, c.req.header("content-type"));
  c.set("body", parsed.body);
  c.set("bodyError", parsed.error);
  return null;
}

function tooLarge(): Reply {
  return fail(413, "payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);
}

function parseBody(
  text: string,
  contentType: string | undefined,
): { body: JsonValue | null; error: BodyError | null } {
  const type = (contentType ?? "").toLowerCase();
  if (type.includes("application/x-www-form-urlencoded")) {
    const form: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(text)) if (k !== "__proto__") form[k] = v;
    return { body: form, error: null };
  }
  // No content type is read as JSON (lenient, as most JSON APIs are); another type is refused.
  if (type !== "" && !type.includes("json")) {
    return {
      body: text,
      error: {
        status: 415,
        error: "unsupported_media_type",
        message: `content-type ${contentType} is not accepted; send a JSON body with content-type: application/json`,
      },
    };
  }
  try {
    const body = text.includes("__proto__")
      ? (JSON.parse(text, (k, v) => (k === "__proto__" ? undefined : v)) as JsonValue)
      : (JSON.parse(text) as JsonValue);
    return { body, error: null };
  } catch (e) {
    return {
      body: text,
      error: {
        status: 400,
        error: "invalid_json",
        message: `request body is not valid JSON: ${(e as Error).message}`,
      },
    };
  }
}

/** The request URL, parsed once per request. */
function requestUrl(c: Context<Env>): URL {
  let url = c.get("url");
  if (!url) {
    url = new URL(c.req.url);
    c.set("url", url);
  }
  return url;
}

/**
 * Turn a reply into the HTTP response and log the exchange exactly as the client will see it. This
 * is where an error is worded in the world's error style, so route logic stays semantic.
 */
function respond(c: Context<Env>, semantic: Reply): Response {
  const reply = styleReply(c.env.trial.world.errors, semantic);
  const text = reply.body === null ? null : JSON.stringify(reply.body);
  const headers: Record<string, string> = {};
  if (text !== null) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(text));
  }
  for (const [name, value] of Object.entries(reply.headers)) headers[name.toLowerCase()] = value;
  const trial = c.env.trial;
  if (trial.recording) {
    const url = requestUrl(c);
    trial.log.append({
      type: "exchange",
      protocol: "rest",
      method: c.req.method,
      url: url.pathname + url.search,
      request_headers: redactHeaders(c.req.raw.headers),
      request_body: c.get("body") ?? null,
      status: reply.status,
      response_headers: headers,
      response_body: reply.body,
    });
  }
  // An in-process caller takes the text handed back, not the body: a body stream would only be
  // built to be dropped (a null-body status keeps the text, so Response refuses it as before).
  const inProcess = text !== null && handedBodies.has(c.req.raw) && !NULL_BODY_STATUS.has(reply.status);
  const response = new Response(inProcess ? null : text, { status: reply.status, headers });
  handedTexts.set(response, text ?? "");
  return response;
}

/** Statuses a Response may not carry a body with. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

// In-process exchanges hand bodies over as text (see `inProcessTransport`): the body of a request
// sent without one ("" when it has none, which marks the exchange as in-process), and the text of
// a response as `respond` wrote it. A response Hono rebuilt (HEAD)
// is not found here and is read from its stream as usual.
const handedBodies = new WeakMap<Request, string>();
const handedTexts = new WeakMap<Response, string>();

/** Hand `text` over as the body of `request` (built without one), for an in-process call. */
export function handOverBody(request: Request, text: string): void {
  handedBodies.set(request, text);
}

/** The text of a response the engine wrote, without reading its stream; undefined if unknown. */
export function handedBackText(response: Response): string | undefined {
  return handedTexts.get(response);
}

// An agent sends the same token many times: hashing it once keeps logging off the hot path.
const redacted = new Map<string, string>();

/** Header names lower-cased; credentials replaced by their scheme and a short digest. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers.entries()) {
    if (name === "authorization" || name === "x-api-key" || name === "cookie") {
      let shown = redacted.get(value);
      if (shown === undefined) {
        const [scheme, ...rest] = value.split(" ");
        const secret = rest.join(" ") || (scheme ?? "");
        shown = `${rest.length ? `${scheme} ` : ""}<redacted:${sha256Hex(secret).slice(0, 8)}>`;
        if (redacted.size >= 10_000) redacted.clear();
        redacted.set(value, shown);
      }
      out[name] = shown;
    } else out[name] = value;
  }
  return out;
}
