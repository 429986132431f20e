import { METHODS } from "node:http";
import type { Context } from "hono";
import { Hono } from "hono";
import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { mintTokenReply } from "./auth.js";
import { canonicalPath, paramValue, rawPathAndQuery } from "./canonical-request.js";
import { renderOpenApi } from "./openapi.js";
import { mountProtocolWorld } from "./protocol-world.js";
import { fail, gradeHints, ok, type Reply, styleReply, withTerse } from "./reply.js";
import { malformedPath } from "./request-target.js";
import { honoRoutePath, matchRoute, routeOrder, routesOnPath } from "./route-path.js";
import { type BodyError, type RouteRequest, serveRoute } from "./serve-route.js";
import { MAX_WAIT_SECONDS, type TrialWorld } from "./trial-world.js";
import { canonicalQuery, carriedVersion, missingVersion, versionedRequest } from "./versioning.js";

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
  // Hono routes by the canonical path (see canonical-request.ts), as the plain path and the log do.
  const versioned = carriedVersion(world) !== null;
  const app = new Hono<Env>({
    getPath: (req) => {
      const path = canonicalPath(pathOf(rawPathAndQuery(req.url)));
      if (!versioned) return path;
      const v = versionedRequest(
        world,
        path,
        queryOf(rawPathAndQuery(req.url)),
        (n) => req.headers.get(n) ?? undefined,
      );
      return "refused" in v ? path : v.path;
    },
  });
  const table = routingTable(world);

  app.use("*", async (c, next) => {
    const read = await readRequest(c.env.trial, {
      method: c.req.method,
      header: (name) => c.req.header(name),
      text: () => handedBodies.get(c.req.raw) ?? c.req.text(),
    });
    if ("refused" in read) {
      c.res = respond(c, read.refused);
      return;
    }
    // A path no route can mean is refused like a bad request line, after its logical second.
    const malformed = malformedPath(c.req.url);
    if (malformed) {
      c.res = respond(c, malformed);
      return;
    }
    // A header- or query-versioned world refuses a version in the path, or one that is no number.
    if (versioned) {
      const raw = rawPathAndQuery(c.req.url);
      const v = versionedRequest(world, canonicalPath(pathOf(raw)), queryOf(raw), (n) => c.req.header(n));
      if ("refused" in v) {
        c.res = respond(c, v.refused);
        return;
      }
    }
    c.set("body", read.body);
    c.set("bodyError", read.bodyError);
    await next();
  });

  // A GraphQL or MCP world serves its routes through one endpoint instead (src/world/protocol-world.ts).
  if (world.protocol === "graphql" || world.protocol === "mcp") {
    mountProtocolWorld(app, world);
    return app;
  }

  for (const entry of routeOrder(table.entries)) {
    app.on(entry.method, entry.honoPath, (c) =>
      respond(
        c,
        entry.serve(c.env.trial, {
          url: requestUrl(c),
          params: c.req.param() as Record<string, string>,
          header: (name) => c.req.header(name),
          body: c.get("body"),
          bodyError: c.get("bodyError"),
        }),
      ),
    );
  }

  app.notFound((c) => respond(c, unrouted(world, table.declared, c.req.method, c.req.path)));
  app.onError((err, c) => respond(c, engineFailed(err)));
  return app;
}

/** One path a REST world answers; Hono and the plain path try them in `routeOrder` (`matchRoute`'s rule). */
interface RoutingEntry {
  method: string;
  /** The path template (`/v3/vessels/{vessel_id}`). */
  path: string;
  /** The same path in Hono's syntax (`/v3/vessels/:vessel_id`). */
  honoPath: string;
  serve(trial: TrialWorld, req: RouteRequest): Reply;
}

/** What a REST world answers: its spec, the token endpoint and its declared routes. */
interface RoutingTable {
  entries: RoutingEntry[];
  /** The entries of the world's declared routes: a path one of them takes answers 405, not 404. */
  declared: RoutingEntry[];
}

const routingTables = new WeakMap<World, RoutingTable>();

/** A REST world's routing table, built once per world object. */
function routingTable(world: World): RoutingTable {
  let table = routingTables.get(world);
  if (table) return table;
  const spec = renderOpenApi(world) as unknown as JsonValue;
  const entry = (method: string, path: string, serve: RoutingEntry["serve"]): RoutingEntry => ({
    method,
    path,
    honoPath: honoRoutePath(path),
    serve,
  });
  const declared = world.routes.map((route) =>
    entry(route.method, route.path, (trial, req) => serveRoute(trial, route, req)),
  );
  table = {
    entries: [
      entry("GET", "/openapi.json", () => ok(200, spec)),
      entry("POST", world.auth.token_path, (trial, req) =>
        req.bodyError
          ? fail(req.bodyError.status, req.bodyError.error, req.bodyError.message)
          : mintTokenReply(trial, req.body),
      ),
      ...declared,
    ],
    declared,
  };
  routingTables.set(world, table);
  return table;
}

/** What in a path-and-query the WHATWG URL parser would rewrite (dot segments, characters it escapes, a quote in the query). */
const URL_PARSER_CHANGES = /[^\w\-.~!$&()*+,;=:@/?%]|\/\.|%2e|\\/i;

/** Methods the plain path serves (HEAD and the rest go through Hono, which answers them its own way). */
const PLAIN_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * Serve an in-process request to a REST world without building a fetch Request or Response: the
 * same reading, routing table, route logic, error style and log as the Hono app, so the same
 * status, headers, text and event log (a test holds it to the app over every kind of exchange).
 * Hono's own work per request (context, router, compose, Response and Headers objects) was most of
 * an in-process call, and certification makes about a million of them. Returns null for what only
 * the app handles the same way: another protocol or method, or a URL whose path is percent-encoded
 * (Hono decodes it before routing) or that has a fragment.
 *
 * @example const r = await servePlain(trial, { url: "http://world.local/v3/vessels", method: "GET", headers }, undefined);
 */
export async function servePlain(
  trial: TrialWorld,
  parts: { url: string; method: string; headers: Headers },
  bodyText: string | undefined,
): Promise<WrittenReply | null> {
  const world = trial.world;
  const { url: href, method, headers } = parts;
  if ((world.protocol ?? "rest") !== "rest" || !PLAIN_METHODS.has(method)) return null;
  if (href.includes("#")) return null;
  // No named closures here (tsx names each one it builds, and this runs for every call): the
  // request's header reader is a method, the URL is parsed once when needed.
  let parsed: URL | undefined;
  // The path and query as a fetch Request holds them (the URL parser resolves dot segments and
  // escapes odd characters), parsed only when the href has something the parser would change.
  const written = rawPathAndQuery(href);
  let raw = written;
  if (URL_PARSER_CHANGES.test(written)) {
    parsed = new URL(href);
    raw = parsed.pathname + parsed.search;
  }
  // The canonical path, as the Hono app's getPath reads it.
  let path = canonicalPath(pathOf(raw));
  const version = carriedVersion(world)
    ? versionedRequest(world, path, queryOf(raw), (name) => headers.get(name) ?? undefined)
    : null;
  if (version && !("refused" in version)) path = version.path;
  const exchange = { method, path, raw, headers, body: null as JsonValue | null };
  try {
    const read = await readRequest(trial, {
      method,
      header(name) {
        return headers.get(name) ?? undefined;
      },
      text() {
        return bodyText ?? "";
      },
    });
    if ("refused" in read) return writeReply(trial, read.refused, exchange);
    const malformed = malformedPath(href);
    if (malformed) return writeReply(trial, malformed, exchange);
    if (version && "refused" in version) return writeReply(trial, version.refused, exchange);
    exchange.body = read.body;
    const table = routingTable(world);
    const hit = matchRoute(table.entries, method, path);
    if (!hit) return writeReply(trial, unrouted(world, table.declared, method, path), exchange);
    const params: Record<string, string> = {};
    for (const [name, v] of Object.entries(hit.params)) params[name] = paramValue(v);
    const req: RouteRequest = {
      url: parsed ?? new URL(href),
      params,
      header(name) {
        return headers.get(name) ?? undefined;
      },
      body: read.body,
      bodyError: read.bodyError,
    };
    return writeReply(trial, hit.route.serve(trial, req), exchange);
  } catch (err) {
    return writeReply(trial, engineFailed(err as Error), exchange);
  }
}

/** The answer to a request no route takes: 405 with `allow` when the path is a route's, else 404. */
function unrouted(world: World, declared: readonly RoutingEntry[], method: string, path: string): Reply {
  const noVersion = missingVersion(world, path, (p) => routesOnPath(declared, p).length > 0);
  if (noVersion) return noVersion;
  const allowed = [...new Set(routesOnPath(declared, path).map((r) => r.method))];
  if (allowed.length > 0) {
    return withTerse(
      fail(
        405,
        "method_not_allowed",
        `${method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`,
        {},
        { allow: allowed.join(", ") },
      ),
      `${method} is not allowed on ${path}`,
    );
  }
  return fail(404, "not_found", `no route ${method} ${path}; the published routes are in /openapi.json`);
}

/** A crash in route logic is a bug in the world or the engine; the agent still gets a truthful JSON answer. */
function engineFailed(err: Error): Reply {
  return fail(500, "internal_error", `the world engine failed: ${err.message}`);
}

/** What the engine reads of a request before routing it, whichever way it came (Hono or plain). */
interface IncomingRequest {
  method: string;
  header(name: string): string | undefined;
  /** The body text (only asked for when the method may carry one and its length is admissible). */
  text(): string | Promise<string>;
}

/**
 * Advance the clock, read and parse the body. Refuses the request (a reply) when it must be refused
 * before routing (bad wait header, body too large); body problems that only matter to routes that
 * read a body are left in `bodyError`.
 */
async function readRequest(
  trial: TrialWorld,
  req: IncomingRequest,
): Promise<{ refused: Reply } | { body: JsonValue | null; bodyError: BodyError | null }> {
  const wait = req.header(WAIT_HEADER);
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
  if (!KNOWN_METHODS.has(req.method)) return { refused: ok(400, { ...UNPARSEABLE_REQUEST }) };
  const declared = Number(req.header("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return { refused: tooLarge() };
  const method = req.method;
  const text = method === "GET" || method === "HEAD" ? "" : await req.text();
  if (text.length > MAX_BODY_BYTES / 4 && Buffer.byteLength(text) > MAX_BODY_BYTES)
    return { refused: tooLarge() };
  if (waitError) return { refused: waitError };
  if (text === "") return { body: null, bodyError: null };
  const parsed = parseBody(text, req.header("content-type"));
  return { body: parsed.body, bodyError: parsed.error };
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

/** The query of a path-and-query (`?…`, or ""). */
function queryOf(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf("?");
  return q === -1 ? "" : pathAndQuery.slice(q);
}

/** The path of a path-and-query. */
function pathOf(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf("?");
  return q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
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

/** A reply as it goes out: the world's error style applied, the JSON text and the headers written. */
interface WrittenReply {
  status: number;
  headers: Record<string, string>;
  text: string | null;
  /** The value `text` is the JSON of (null without a body): the body the log holds, never changed. */
  body: JsonValue | null;
}

/**
 * Word a reply in the world's error style, write its text and headers, and log the exchange
 * exactly as the client will see it. This is where an error is worded in the world's error style,
 * so route logic stays semantic.
 */
function writeReply(
  trial: TrialWorld,
  semantic: Reply,
  request: {
    method: string;
    /** The canonical path the request was routed by. */
    path: string;
    /** The path and query as the client wrote them. */
    raw: string;
    headers: Headers;
    body: JsonValue | null;
  },
): WrittenReply {
  const level = semantic.problem ? trial.hintLevel(request.path) : trial.hints;
  const reply = styleReply(trial.world.errors, gradeHints(level, semantic));
  const text = reply.body === null ? null : JSON.stringify(reply.body);
  const headers: Record<string, string> = {};
  if (text !== null) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(text));
  }
  for (const [name, value] of Object.entries(reply.headers)) headers[name.toLowerCase()] = value;
  if (trial.recording) {
    const q = request.raw.indexOf("?");
    const url = q === -1 ? request.path : request.path + canonicalQuery(trial.world, request.raw.slice(q));
    trial.log.append({
      type: "exchange",
      protocol: "rest",
      method: request.method,
      url,
      ...(url === request.raw ? {} : { raw_url: request.raw }),
      request_headers: redactHeaders(request.headers),
      request_body: request.body,
      status: reply.status,
      response_headers: headers,
      response_body: reply.body,
    });
  }
  return { status: reply.status, headers, text, body: reply.body };
}

/** Turn a reply into the HTTP response (see `writeReply`). */
function respond(c: Context<Env>, semantic: Reply): Response {
  const { status, headers, text } = writeReply(c.env.trial, semantic, {
    method: c.req.method,
    path: c.req.path,
    raw: rawPathAndQuery(c.req.url),
    headers: c.req.raw.headers,
    body: c.get("body") ?? null,
  });
  // An in-process caller takes the text handed back, not the body: a body stream would only be
  // built to be dropped (a null-body status keeps the text, so Response refuses it as before).
  const inProcess = text !== null && handedBodies.has(c.req.raw) && !NULL_BODY_STATUS.has(status);
  const response = new Response(inProcess ? null : text, { status, headers });
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
