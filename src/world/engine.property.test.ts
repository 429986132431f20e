import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../test/support/world-test-helpers.js";
import type { JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { EXAMPLE_WORLD } from "./example-world.js";
import { inProcessTransport, type WorldTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/** The 5xx codes a world may declare (transient failures, partial writes); any other 5xx is a bug. */
const DECLARED_5XX = new Set(["transient_failure", "partial_write"]);

/** A body over the engine's 256 KiB cap. */
const HUGE = JSON.stringify({ site: "x".repeat(300_000) });

interface AgentRequest {
  /** `fresh`: a token minted just before the request (tokens expire by calls and by clock). */
  auth: "fresh" | "narrow" | "pool" | "none";
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function requestArbitrary(world: World, tokens: string[]): fc.Arbitrary<AgentRequest> {
  const segment = fc.oneof(
    fc.constantFrom(
      "..",
      ".",
      "%2e%2e",
      "%2F",
      "V-204",
      "VL-1",
      "WO-018",
      "job_X",
      "",
      "%00",
      "confirm",
      "bulk",
    ),
    fc.string({ maxLength: 12 }),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,10}$/),
  );
  const declared = fc
    .tuple(
      fc.constantFrom(...world.routes.map((r) => r.path), world.auth.token_path, "/openapi.json"),
      segment,
    )
    .map(([path, fill]) => path.replace(/\{[^}]+\}/g, () => encodeURIComponent(fill)));
  const random = fc.array(segment, { minLength: 0, maxLength: 5 }).map((parts) => `/${parts.join("/")}`);
  const queryKey = fc.constantFrom(
    "cursor",
    "limit",
    "page",
    "per_page",
    "offset",
    "zone",
    "site",
    "include_archived",
    "fields",
    "x",
  );
  const queryValue = fc.oneof(
    fc.constantFrom(
      "0",
      "-1",
      "1",
      "2",
      "99999999999999999999",
      "abc",
      "true",
      "false",
      "c_bGlzdDox",
      "A",
      "north",
      "code",
    ),
    fc.string({ maxLength: 8 }),
  );
  const query = fc
    .array(fc.tuple(queryKey, queryValue), { maxLength: 3 })
    .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ""));
  const header = fc.oneof(
    fc.constantFrom(...tokens).map((t) => ["authorization", `Bearer ${t}`] as const),
    fc
      .constantFrom("Bearer", "Basic abc", "Bearer tk_irr_OLD000", "bearer  x y")
      .map((v) => ["authorization", v] as const),
    fc
      .constantFrom(
        "application/json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/merge-patch+json",
      )
      .map((v) => ["content-type", v] as const),
    fc
      .constantFrom("0", "3", "61", "-2", "abc", "3600", "3601", "1e3")
      .map((v) => ["x-apiflow-wait", v] as const),
    fc.constantFrom("k1", "k2", "").map((v) => ["idempotency-key", v] as const),
    fc.constantFrom('"1"', '"4"', 'W/"2"', "*", "").map((v) => ["if-match", v] as const),
  );
  const jsonBody = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
  const knownBody = fc
    .record(
      {
        site: fc.constantFrom("north", "south", 3),
        valveId: fc.constantFrom("VL-1", 1),
        durationMin: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
        duration_min: fc.integer(),
        mode: fc.constantFrom("eco", "turbo"),
        confirm: fc.boolean(),
        grant_type: fc.constantFrom("client_credentials", "refresh_token", "password"),
        client_id: fc.constantFrom(world.auth.client_id, "nope"),
        client_secret: fc.constantFrom(world.auth.client_secret, "nope"),
        scope: fc.constantFrom("valves:read", "root", ""),
        vessel_id: fc.constantFrom("V-204"),
        priority: fc.constantFrom("high"),
        firmware_build: fc.constantFrom("FW-1"),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o));
  const body = fc.option(
    fc.oneof(
      jsonBody,
      knownBody,
      fc.string({ maxLength: 40 }),
      fc.constantFrom("{", "[1,", '{"__proto__":{"a":1}}', "null", HUGE),
    ),
    { nil: undefined },
  );
  return fc.record({
    auth: fc.constantFrom("fresh", "fresh", "narrow", "pool", "none"),
    method: fc.constantFrom(
      "GET",
      "GET",
      "POST",
      "POST",
      "POST",
      "PUT",
      "PATCH",
      "PATCH",
      "DELETE",
      "HEAD",
      "OPTIONS",
      "BREW",
      "get",
    ),
    path: fc.oneof(declared, declared, random),
    query,
    headers: fc.array(header, { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs)),
    body,
  });
}

function toRequest(r: AgentRequest, token: string | undefined): Request | null {
  try {
    const hasBody =
      r.body !== undefined && r.method.toUpperCase() !== "GET" && r.method.toUpperCase() !== "HEAD";
    const headers = new Headers();
    if (hasBody) headers.set("content-type", "application/json");
    if (token) headers.set("authorization", `Bearer ${token}`);
    for (const [k, v] of Object.entries(r.headers)) headers.set(k, v);
    return new Request(`http://world.local${r.path}${r.query}`, {
      method: r.method,
      headers,
      ...(hasBody ? { body: r.body } : {}),
    });
  } catch {
    // Not a request any HTTP client could send (e.g. an invalid URL): not the engine's input.
    return null;
  }
}

function snapshot(trial: TrialWorld): string {
  return JSON.stringify({ log: trial.log.events, records: [...trial.records.entries()], clock: trial.clock });
}

async function fuzz(world: World, numRuns: number) {
  const victim = new TrialWorld(world, "seed-victim");
  const victimCall = client(inProcessTransport(victim));
  const { token: victimToken } = await mintToken(victimCall, world);
  await victimCall("GET", world.routes[0]?.path.replace(/\{[^}]+\}/g, "x") ?? "/", { token: victimToken });
  const before = snapshot(victim);

  const agent = new TrialWorld(world, "seed-agent");
  // Its twin gets every request too, the way the workspace sends in-process (`transport.plain`:
  // parts, body beside them), and must answer and log exactly as the agent's world does.
  const twin = new TrialWorld(world, "seed-agent");
  const twinPlain = inProcessTransport(twin).plain;
  if (!twinPlain) throw new Error("an in-process transport has plain");
  const bodies = new WeakMap<Request, string>();
  const agentTransport = inProcessTransport(agent);
  const transport: WorldTransport = async (request) => {
    const body = bodies.get(request) ?? (request.body ? await request.clone().text() : undefined);
    const res = await agentTransport(request);
    const text = await res.clone().text();
    // As the workspace hands it over: the parsed path and query on the in-process origin.
    const { pathname, search } = new URL(request.url);
    const url = `http://world.local${pathname}${search}`;
    const plain = await twinPlain({ url, method: request.method, headers: request.headers }, body);
    expect(
      { status: plain.status, headers: Object.fromEntries(plain.headers.entries()), text: plain.text },
      `${request.method} ${request.url}`,
    ).toEqual({ status: res.status, headers: Object.fromEntries(res.headers.entries()), text });
    return res;
  };
  const call = client(transport);
  const all = world.auth.scopes.join(" ");
  const tokens = [
    (await mintToken(call, world, all || undefined)).token,
    (await mintToken(call, world)).token,
    victimToken,
  ];

  let served = 0;
  const statuses = new Set<number>();
  await fc.assert(
    fc.asyncProperty(requestArbitrary(world, tokens), async (r) => {
      let token: string | undefined;
      if (r.auth === "fresh") token = (await mintToken(call, world, all || undefined)).token;
      if (r.auth === "narrow") token = (await mintToken(call, world)).token;
      if (r.auth === "pool") token = tokens[0];
      const request = toRequest(r, token);
      if (!request) return;
      if (r.body !== undefined) bodies.set(request, r.body);
      const res = await transport(request);
      const text = await res.text();
      served += 1;
      statuses.add(res.status);
      let body: JsonValue | null = null;
      if (text !== "") body = JSON.parse(text) as JsonValue;
      if (res.status >= 500) {
        const code = body && typeof body === "object" && !Array.isArray(body) ? body.error : undefined;
        expect(DECLARED_5XX.has(String(code)), `undeclared ${res.status}: ${text}`).toBe(true);
      }
      // HEAD answers carry headers only (RFC 9110 §9.3.2).
      if (res.status >= 400 && request.method !== "HEAD") {
        expect(typeof (body as { error?: unknown })?.error, text).toBe("string");
      }
    }),
    { numRuns, seed: 20250301 },
  );
  // The engine is still up and the other trial never moved.
  expect((await call("GET", "/openapi.json")).status).toBe(200);
  expect(snapshot(victim)).toBe(before);
  expect(snapshot(twin), "the twin served by transport.plain logged and stored the same").toBe(
    snapshot(agent),
  );
  // The generator reaches past the front door: successes and each kind of refusal occur.
  for (const s of [200, 400, 401, 404, 405]) expect(statuses.has(s), `status ${s} generated`).toBe(true);
  return { served, statuses };
}

describe("bad input from agents (property test, in-process)", () => {
  it("example world: 8,000 generated requests, no undeclared 5xx, JSON errors, other trial untouched", async () => {
    const { served, statuses } = await fuzz(EXAMPLE_WORLD, 8_000);
    expect(served).toBeGreaterThan(7_000);
    for (const s of [201, 403, 413, 415, 422, 429, 503])
      expect(statuses.has(s), `status ${s} generated`).toBe(true);
  });

  it("harbour world: 2,000 generated requests, same properties", async () => {
    expect((await fuzz(HARBOR_WORLD, 2_000)).served).toBeGreaterThan(1_700);
  });

  it("the 5xx property is load-bearing: a world whose route names a missing resource is caught", async () => {
    const broken: World = {
      ...HARBOR_WORLD,
      routes: [
        { ...(HARBOR_WORLD.routes[0] as World["routes"][number]), auth_required: false, resource: "ghosts" },
      ],
    };
    const res = await client(inProcessTransport(new TrialWorld(broken, "s")))("GET", "/v3/vessels");
    expect(res.status).toBe(500);
    expect(res.body.error).toBe("internal_error");
    expect(DECLARED_5XX.has(res.body.error)).toBe(false);
  });
});
