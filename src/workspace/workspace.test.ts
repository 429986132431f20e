import { describe, expect, it } from "vitest";
import { EXAMPLE_WORLD } from "../world/example-world.js";
import { inProcessTransport } from "../world/transport.js";
import { TrialWorld } from "../world/trial-world.js";
import { TOOL_NAMES } from "./tool-definitions.js";
import { type ToolResult, Workspace } from "./workspace.js";

function workspace(): { ws: Workspace; trial: TrialWorld } {
  const trial = new TrialWorld(EXAMPLE_WORLD, "ws-seed");
  const ws = new Workspace({
    world: EXAMPLE_WORLD,
    transport: inProcessTransport(trial),
    log: trial.log,
    variables: { vault: { client_id: "cid_irr", token: "stale" }, local: { box: { a: 1 } }, global: {} },
  });
  return { ws, trial };
}

function expectError(r: ToolResult, code: string, says: string | RegExp): void {
  expect(r.ok).toBe(false);
  expect(r.error?.code).toBe(code);
  expect(r.content).toBe(`error (${code}): ${r.error?.message}`);
  expect(r.error?.message).toMatch(says);
}

const json = (r: ToolResult) => JSON.parse(r.content);

describe("the workspace's argument shapes", () => {
  it("accepts the arguments object as a JSON string, and says why a broken or non-object one is refused", async () => {
    const { ws } = workspace();
    expect(json(await ws.call("read", '{"entity_ref": {"kind": "variable", "id": "client_id"}}'))).toEqual({
      scope: "vault",
      name: "client_id",
      value: "cid_irr",
    });
    expectError(
      await ws.call("read", '{"entity_ref": '),
      "bad_json",
      /^arguments looks like JSON but does not parse/,
    );
    expectError(await ws.call("read", [1]), "bad_arguments", "arguments must be an object, got an array");
    expectError(await ws.call("read", 7), "bad_arguments", "arguments must be an object, got number");
    expectError(
      await ws.call("fetch", {}),
      "unknown_tool",
      /there is no tool "fetch"; the tools are read, write/,
    );
  });

  it("accepts an entity ref as an object, a JSON string, kind:id, request:x/response:y, and type/name aliases", async () => {
    const { ws } = workspace();
    const value = (r: ToolResult) => json(r).value;
    expect(value(await ws.call("read", { entity_ref: { kind: "variable", id: "client_id" } }))).toBe(
      "cid_irr",
    );
    expect(value(await ws.call("read", { entity_ref: '{"kind":"variable","id":"client_id"}' }))).toBe(
      "cid_irr",
    );
    expect(value(await ws.call("read", { entity_ref: "variable:client_id" }))).toBe("cid_irr");
    expect(value(await ws.call("read", { entity_ref: { type: "variable", name: "client_id" } }))).toBe(
      "cid_irr",
    );
    expect(value(await ws.call("read", { entity_ref: { kind: "variable", id: "variable:client_id" } }))).toBe(
      "cid_irr",
    );
    const sent = json(await ws.call("execute", { request: { method: "GET", url: "/v3/valves" } }));
    expect(sent.response_ref).toBe("request:req-0001/response:resp-0002");
    for (const ref of [
      sent.response_ref,
      { kind: "response", id: sent.response_ref },
      "response:resp-0002",
      { kind: "response", id: "resp-0002", parent: "req-0001" },
      { kind: "response", id: "resp-0002", parent: "request:req-0001" },
      // The parent as the request's own ref, as a model copies it.
      { kind: "response", id: "resp-0002", parent: { kind: "request", id: "req-0001" } },
    ]) {
      expect(json(await ws.call("read", { entity_ref: ref })).ref).toBe(
        "request:req-0001/response:resp-0002",
      );
    }
  });

  it("refuses a ref without a kind, of a wrong type or of an unknown kind, never guessing", async () => {
    const { ws } = workspace();
    expectError(
      await ws.call("read", { entity_ref: "client_id" }),
      "missing_kind",
      /"client_id" has no kind/,
    );
    expectError(await ws.call("read", { entity_ref: { id: "client_id" } }), "missing_kind", /missing "kind"/);
    expectError(
      await ws.call("read", {}),
      "bad_type",
      "entity_ref must be an object {kind, id, parent?}, got undefined",
    );
    expectError(await ws.call("read", { entity_ref: 42 }), "bad_type", /got number/);
    expectError(await ws.call("read", { entity_ref: ["variable", "x"] }), "bad_type", /got an array/);
    expectError(
      await ws.call("read", { entity_ref: { kind: "widget", id: "x" } }),
      "unknown_kind",
      /"widget"/,
    );
    expectError(
      await ws.call("read", { entity_ref: { kind: "variable", id: "" } }),
      "missing_id",
      /non-empty/,
    );
    expectError(
      await ws.call("read", { entity_ref: { kind: "variable", id: 3 } }),
      "missing_id",
      /non-empty/,
    );
    expectError(await ws.call("read", { entity_ref: "{kind: variable}" }), "bad_json", /does not parse/);
    expectError(
      await ws.call("read", { entity_ref: { kind: "request", id: "r", parent: 1 } }),
      "bad_type",
      /entity_ref\.parent must be the request's id .*, got number/,
    );
    expectError(
      await ws.call("read", {
        entity_ref: { kind: "response", id: "r", parent: { kind: "spec", id: "openapi" } },
      }),
      "bad_type",
      /entity_ref\.parent must be the request's id/,
    );
    expectError(
      await ws.call("read", { entity_ref: { kind: "response", id: "r", parent: { kind: "request" } } }),
      "bad_type",
      /got object/,
    );
    expectError(await ws.call("read", { entity_ref: "variable:nope" }), "not_found", /no variable "nope"/);
    expectError(
      await ws.call("read", { entity_ref: "variable:client_id", scope: "secret" }),
      "bad_scope",
      'scope "secret" is not one of vault, local, global',
    );
  });

  it("writes a variable from {value}, a bare value or a JSON string, and refuses the vault and shapeless content", async () => {
    const { ws, trial } = workspace();
    expect((await ws.call("write", { entity_ref: "variable:a", content: { value: [1, 2] } })).content).toBe(
      "variable local:a written",
    );
    expect((await ws.call("write", { entity_ref: "variable:b", content: 5, scope: "global" })).ok).toBe(true);
    expect((await ws.call("write", { entity_ref: "variable:c", content: '{"value": {"x": 1}}' })).ok).toBe(
      true,
    );
    expect(ws.variables("local").get("a")).toEqual([1, 2]);
    expect(ws.variables("global").get("b")).toBe(5);
    expect(ws.variables("local").get("c")).toEqual({ x: 1 });
    expect(trial.log.events.filter((e) => e.type === "variable_write").map((e) => e.name)).toEqual([
      "a",
      "b",
      "c",
    ]);
    expectError(
      await ws.call("write", { entity_ref: "variable:a" }),
      "missing_field",
      "write needs `content`",
    );
    expectError(
      await ws.call("write", { entity_ref: "variable:a", content: { x: 1 } }),
      "bad_content",
      /"value"/,
    );
    expectError(
      await ws.call("write", { entity_ref: "variable:a", content: 1, scope: "vault" }),
      "read_only",
      /vault/,
    );
    expectError(
      await ws.call("write", { entity_ref: "spec:openapi", content: {} }),
      "read_only",
      /spec entities/,
    );
    expectError(
      await ws.call("write", { entity_ref: "request:r", content: { method: "GET" } }),
      "bad_request",
      /^request content is invalid: url: /,
    );
  });

  it("edits requests and object variables with a patch object (or its JSON text), and refuses the rest", async () => {
    const { ws } = workspace();
    await ws.call("write", { entity_ref: "request:r", content: '{"method": "GET", "url": "/v3/valves"}' });
    expect((await ws.call("edit", { entity_ref: "request:r", patch: '{"method": "HEAD"}' })).content).toBe(
      "request r edited",
    );
    expect(json(await ws.call("read", { entity_ref: "request:r" })).content.method).toBe("HEAD");
    expect((await ws.call("edit", { entity_ref: "variable:box", patch: { b: 2 } })).ok).toBe(true);
    expect(ws.variables("local").get("box")).toEqual({ a: 1, b: 2 });
    expectError(
      await ws.call("edit", { entity_ref: "request:r", patch: [1] }),
      "bad_patch",
      "patch must be an object, got an array",
    );
    expectError(
      await ws.call("edit", { entity_ref: "request:r" }),
      "bad_patch",
      "patch must be an object, got undefined",
    );
    expectError(
      await ws.call("edit", { entity_ref: "request:r", patch: { url: 9 } }),
      "bad_request",
      /^patched request is invalid: url/,
    );
    expectError(
      await ws.call("edit", { entity_ref: "request:zz", patch: {} }),
      "not_found",
      /write it first/,
    );
    expectError(await ws.call("edit", { entity_ref: "variable:token", patch: {} }), "read_only", /vault/);
    await ws.call("write", { entity_ref: "variable:n", content: 3 });
    expectError(
      await ws.call("edit", { entity_ref: "variable:n", patch: {} }),
      "bad_patch",
      /holds a number, not an object/,
    );
  });

  it("searches with a missing or null query as an empty one, and refuses a non-string query or an unknown kind", async () => {
    const { ws } = workspace();
    const all = json(await ws.call("search", undefined));
    expect(all).toEqual(json(await ws.call("search", { query: null })));
    expect(all).toContain("spec:openapi");
    expect(json(await ws.call("search", { query: "CLIENT", kind: "variable" }))).toEqual([
      { kind: "variable", id: "client_id", scope: "vault" },
    ]);
    expectError(await ws.call("search", { query: 3 }), "bad_type", "query must be a string, got number");
    expectError(
      await ws.call("search", { query: "", kind: "table" }),
      "unknown_kind",
      /"table" is not one of/,
    );
  });

  it("executes an inline request given as JSON text or a stored target given as a bare ref, with truthful errors", async () => {
    const { ws } = workspace();
    const inline = await ws.call("execute", { request: '{"method": "GET", "url": "/v3/valves"}' });
    expect(json(inline).status).toBe(401);
    await ws.call("write", { entity_ref: "request:list", content: { method: "GET", url: "/v3/valves" } });
    expect(json(await ws.call("execute", { target: "request:list" })).response_ref).toMatch(
      /^request:list\//,
    );
    expectError(await ws.call("execute", {}), "missing_field", /needs `request` \(inline\) or `target`/);
    expectError(
      await ws.call("execute", { target: "variable:token" }),
      "bad_target",
      "target must be a request, got variable",
    );
    expectError(await ws.call("execute", { target: "list" }), "missing_kind", /^target "list" has no kind/);
    expectError(
      await ws.call("execute", { target: "request:nope" }),
      "not_found",
      /write it first or pass request/,
    );
    expectError(
      await ws.call("execute", { request: { url: "/v3/valves" } }),
      "bad_request",
      /^request is invalid: method/,
    );
    expectError(
      await ws.call("execute", { request: { method: "GET", url: "/v3/{{nope}}" } }),
      "unknown_variable",
      /\{\{nope\}\}/,
    );
    expectError(
      await ws.call("execute", { request: { method: "GET", url: "http://[" } }),
      "bad_url",
      /is not a URL or a path/,
    );
    expectError(
      await ws.call("execute", {
        request: { method: "GET", url: "/v3/valves", headers: { "bad header": "x" } },
      }),
      "bad_header",
      /"bad header" is not a valid HTTP header/,
    );
    expectError(
      await ws.call("execute", { request: { protocol: "graphql", query: "{ x }" } }),
      "unsupported_protocol",
      /this world speaks rest, not graphql; send \{protocol: "rest"/,
    );
  });

  it("ends the trial on clarify and report_blocked only with a non-empty text", async () => {
    const { ws } = workspace();
    expect(await ws.call("clarify", { question: "Which valve?" })).toMatchObject({
      ok: true,
      ends: "clarify",
    });
    expect(await ws.call("report_blocked", '{"reason": "no route"}')).toMatchObject({
      ends: "report_blocked",
    });
    expectError(
      await ws.call("clarify", { question: "  " }),
      "missing_field",
      "clarify needs `question` (a non-empty string)",
    );
    expectError(await ws.call("report_blocked", { reason: 1 }), "missing_field", /needs `reason`/);
  });

  it("answers every tool with a result, never an exception, whatever shape each argument has", async () => {
    const { ws } = workspace();
    const odd: unknown[] = [
      undefined,
      null,
      0,
      true,
      "",
      "{",
      "[1]",
      "x",
      [],
      {},
      { kind: 1 },
      { kind: "request" },
    ];
    const fields = [
      "entity_ref",
      "content",
      "patch",
      "scope",
      "query",
      "kind",
      "request",
      "target",
      "question",
      "reason",
    ];
    for (const name of TOOL_NAMES) {
      for (const field of fields) {
        for (const value of odd) {
          const r = await ws.call(name, { [field]: value });
          expect(typeof r.content).toBe("string");
          if (!r.ok) expect(r.content).toMatch(/^error \([a-z_]+\): \S/);
        }
      }
    }
  });

  it("forks into an independent copy with the same entities and counters", async () => {
    const { ws } = workspace();
    await ws.call("write", { entity_ref: "variable:a", content: 1 });
    await ws.call("execute", { request: { method: "GET", url: "/v3/valves" } });
    const trial = new TrialWorld(EXAMPLE_WORLD, "ws-seed");
    const copy = ws.fork({ transport: inProcessTransport(trial), log: trial.log });
    await copy.call("write", { entity_ref: "variable:a", content: 2 });
    expect(ws.variables("local").get("a")).toBe(1);
    const next = json(await copy.call("execute", { request: { method: "GET", url: "/v3/valves" } }));
    const again = json(await ws.call("execute", { request: { method: "GET", url: "/v3/valves" } }));
    expect(next.response_ref).toBe("request:req-0003/response:resp-0004");
    expect(again.response_ref).toBe(next.response_ref);
  });
});
