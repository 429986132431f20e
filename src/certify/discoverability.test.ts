import { describe, expect, it } from "vitest";
import { bankWith, SUB01, SUB03, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { worldSpec } from "../workspace/workspace.js";
import { jsonAtoms } from "./certify-kit.js";
import { discoverabilityGate, sentLiterals, specFieldNames } from "./discoverability.js";

describe("discoverability", () => {
  const bank = bankFromContent(skeletonContent());

  it("finds every literal of the skeleton bank's golden runs before it is sent", async () => {
    const report = await discoverabilityGate(bank, bank.tasks);
    expect(report.first_failure).toBeNull();
    expect(report.passed).toBe(4);
  });

  it("splits a request into the literals it sends", () => {
    const literals = sentLiterals({
      url: "/v3/vessels/V-204?page=2&sort=",
      headers: { Authorization: "Bearer tk_1", "X-Tenant": "north" },
      body: { priority: "high", count: 3, urgent: true, tags: ["a"] },
    });
    expect(literals.map((l) => `${l.where}=${l.value}`)).toEqual([
      "path segment=v3",
      "path segment=vessels",
      "path segment=V-204",
      "query parameter=page",
      "query value=2",
      "query parameter=sort",
      "header name=Authorization",
      "header value=Bearer",
      "header value=tk_1",
      "header name=X-Tenant",
      "header value=north",
      "body field=priority",
      "body value=high",
      "body field=count",
      "body value=3",
      "body field=urgent",
      "body field=tags",
      "body value=a",
    ]);
  });

  it("reports an undiscoverable header with the golden step that sent it", async () => {
    const broken = bankWith(SUB01, (t) => ({
      ...t,
      golden: t.golden.map((s, i) =>
        i === 1 && s.op === "execute"
          ? {
              ...s,
              request: { ...s.request, headers: { ...s.request.headers, "X-Fleet-Tenant": "north-7" } },
            }
          : s,
      ),
    }));
    const report = await discoverabilityGate(broken, [taskOf(broken, SUB01)]);
    expect(report.failed).toBe(1);
    expect(report.first_failure).toMatch(
      /golden step 2 \(GET \/v3\/vessels\/V-204\) sends header name "X-Fleet-Tenant"/,
    );
  });

  it("reports an id the ticket never names and no earlier response shows", async () => {
    // V-412 exists in the world, but the spec, the ticket and the token response never mention it.
    const broken = bankWith(SUB03, (t) => ({
      ...t,
      golden: t.golden.map((s) =>
        s.op === "execute" && s.request.url === "/v3/maintenance-orders"
          ? {
              ...s,
              request: {
                ...s.request,
                body: { vessel_id: "V-412", priority: "high", firmware_build: "{{firmware}}" },
              },
            }
          : s,
      ),
    }));
    const report = await discoverabilityGate(broken, [taskOf(broken, SUB03)]);
    expect(report.first_failure).toMatch(
      /golden step 3 \(POST \/v3\/maintenance-orders\) sends body value "V-412"/,
    );
  });

  it("fails a task whose golden run stops before sending every request (its literals go unchecked)", async () => {
    const broken = bankWith(SUB01, (t) => ({
      ...t,
      golden: t.golden.map((s, i) =>
        i === 0 && s.op === "execute"
          ? {
              ...s,
              request: {
                ...s.request,
                body: {
                  grant_type: "client_credentials",
                  client_id: "{{client_secret}}",
                  client_secret: "{{client_id}}",
                },
              },
            }
          : s,
      ),
    }));
    const report = await discoverabilityGate(broken, [taskOf(broken, SUB01)]);
    expect(report.first_failure).toMatch(/golden run sent 1 of 2 requests/);
  });

  it("counts a body field as discoverable from the spec only where the spec names it as a field", async () => {
    const world = bank.worlds[0];
    if (!world) throw new Error("no world");
    const fields = specFieldNames(world).split("\n");
    // `snapshot` is a word of the spec's prose (a route summary), never a field's name.
    expect(jsonAtoms(worldSpec(world))).toMatch(/\bunit\b/);
    expect(fields).not.toContain("snapshot");
    expect(fields).toEqual(expect.arrayContaining(["vessel_id", "firmware_build"]));
    const post = (t: Task) =>
      t.golden.findIndex((s) => s.op === "execute" && s.request.method === "POST" && s.request.body);
    const id = bank.tasks.find((t) => t.kind === "solo" && post(t) >= 0)?.id;
    if (!id) throw new Error("no skeleton task posts a body");
    const withField = (t: Task): Task => ({
      ...t,
      golden: t.golden.map((s, i) =>
        i === post(t) && s.op === "execute"
          ? { ...s, request: { ...s.request, body: { ...(s.request.body as object), snapshot: "high" } } }
          : s,
      ),
    });
    const prose = bankWith(id, withField);
    const report = await discoverabilityGate(prose, [taskOf(prose, id)]);
    expect(report.first_failure).toMatch(/sends body field "snapshot", which is not in the ticket, the spec/);
    // Named in the ticket, the same field is known.
    const told = bankWith(id, (t) =>
      withField({ ...t, ticket: `${t.ticket} The body's \`snapshot\` is high.` }),
    );
    const again = await discoverabilityGate(told, [taskOf(told, id)]);
    expect(again.first_failure ?? "").not.toMatch(/body field "snapshot"/);
  });
});
