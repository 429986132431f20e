import { describe, expect, it } from "vitest";
import { positionalJobTask, REQUIREMENT_WORLD as W } from "../../test/support/requirement-banks.js";
import { CHAIN, idIn, SUB03, skeletonContent, skeletonIn, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { G1Predicate, GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { requirementMutants } from "./golden-mutants.js";

/**
 * Issue 21 (area certify-golden-mutants-operators): what golden-mutants-operators.test.ts leaves
 * open. The records a same-record ordering's sibling takes (which step minted it, which of its
 * captures, which calls between), a header mutant's call, the end state's count in a chain and in
 * a solo task, the token a chain's repeat mints again, a text body's keys and a GraphQL send's
 * fabricated value. Each mutant's steps are pinned without a trial.
 */

type Execute = Extract<GoldenStep, { op: "execute" }>;
const bearer = { Authorization: "Bearer {{token}}" };
const job = positionalJobTask();
const mint = job.golden[0] as Execute;
const answer: GoldenStep = { op: "answer", fields: { order_id: "order" } };
const call = (
  method: string,
  url: string,
  capture: Record<string, string> = {},
  headers: Record<string, string> = {},
  body?: unknown,
): Execute => ({
  op: "execute",
  request: {
    method,
    url,
    headers: { ...bearer, ...headers },
    ...(body === undefined ? {} : { body: body as never }),
  },
  capture,
});
const create = (capture: Record<string, string> = { job: "job_id" }, headers: Record<string, string> = {}) =>
  call("POST", "/v3/maintenance-orders", capture, headers, { vessel_id: "V-204", priority: "high" });
const poll = (id = "{{job}}", headers: Record<string, string> = {}) =>
  call("GET", `/v3/jobs/${id}`, {}, headers);
const confirm = (
  capture: Record<string, string> = { order: "result.order_id" },
  headers: Record<string, string> = {},
) => call("POST", "/v3/jobs/{{job}}/confirm", capture, headers);

function task(golden: GoldenStep[], requirements: Requirement[]): Task {
  return { ...job, golden, requirements };
}
const mutants = (t: Task, world: World = W) => requirementMutants(world, t, t.requirements ?? []);
const urls = (steps: GoldenStep[]) => steps.map((s) => (s.op === "execute" ? s.request.url : s.op));

describe("same_record ordering: the sibling minted by the last step `after` depends on", () => {
  const pollCall = { method: "GET", url_pattern: "^/v3/jobs/[^/]+$" };
  const confirmCall = { method: "POST", url_pattern: "^/v3/jobs/[^/]+/confirm$" };
  const order = (before: { method?: string; url_pattern: string } = pollCall): Requirement => ({
    id: "o",
    kind: "ordering",
    predicates: ["p"],
    before,
    after: confirmCall,
    same_record: true,
  });

  it("the minter is before `after`: a confirm that captures its own job again mints nothing", () => {
    const golden = [mint, create(), poll(), confirm({ job: "job_id" }), answer];
    const [m, ...rest] = mutants(task(golden, [order()]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ name: "o:sibling_before@3", step: 3 });
    expect(urls(m?.steps("s") ?? [])).toEqual([
      "/v3/oauth/token",
      "/v3/maintenance-orders",
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__sibling}}",
      "/v3/jobs/{{job}}/confirm",
      "answer",
    ]);
  });

  it("the handles are the minter's captures `after` uses; a call between needs one of them", () => {
    // The create captures job, ref and extra; the confirm uses job and ref; the poll job and extra.
    const golden = [
      mint,
      create({ job: "job_id", ref: "vessel_id", extra: "status" }),
      poll("{{job}}", { "X-Extra": "{{extra}}" }),
      confirm(undefined, { "X-Ref": "{{ref}}" }),
      answer,
    ];
    const [m] = mutants(task(golden, [order()]));
    expect(m?.name).toBe("o:sibling_before@3");
    const moved = m?.steps("s")[3] as Execute;
    expect(moved.request.url).toBe("/v3/jobs/{{job__sibling}}");
    expect(moved.request.headers).toEqual({ ...bearer, "X-Extra": "{{extra}}" });
  });

  it("only the calls after the minter and before `after`: not an earlier job's, the minter's or the confirm", () => {
    // Two creates, each polled; the second create sends the first job (a resubmission). `before`
    // matches polls, creates and confirms alike.
    const any = { url_pattern: "^/v3/(jobs/[^/]+(/confirm)?|maintenance-orders)$" };
    const golden = [
      mint,
      create(),
      poll(),
      create({ job: "job_id" }, { "X-Previous": "{{job}}" }),
      poll(),
      confirm(),
      poll(),
      answer,
    ];
    const [m, ...rest] = mutants(task(golden, [order(any)]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ name: "o:sibling_before@5", step: 5 });
    const steps = m?.steps("s") ?? [];
    expect(urls(steps)).toEqual([
      "/v3/oauth/token",
      "/v3/maintenance-orders",
      "/v3/jobs/{{job}}",
      "/v3/maintenance-orders",
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__sibling}}",
      "/v3/jobs/{{job}}/confirm",
      "/v3/jobs/{{job}}",
      "answer",
    ]);
    expect((steps[3] as Execute).request.headers).toEqual({ ...bearer, "X-Previous": "{{job}}" });
  });

  it("a `before` only ahead of the minter: no sibling, the other mutants apply", () => {
    const golden = [mint, poll("J-0"), create(), confirm(), answer];
    expect(mutants(task(golden, [order()])).map((m) => m.name)).toEqual(["o:swap@2"]);
  });
});

describe("a header's value: the call the requirement names that sends the header", () => {
  it("a call sending the header but not the one named is passed over", () => {
    const header: Requirement = {
      id: "keyed",
      kind: "value_written",
      predicates: ["p"],
      call: { method: "POST", url_pattern: "^/v3/maintenance-orders$" },
      key: "Idempotency-Key",
      in: "header",
      value: "K-1",
      alternatives: ["K-2"],
    };
    const golden = [
      mint,
      call("GET", "/v3/vessels/V-204", {}, { "Idempotency-Key": "K-0" }),
      create({ job: "job_id" }, { "Idempotency-Key": "K-1" }),
      answer,
    ];
    const [m, ...rest] = mutants(task(golden, [header]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({
      name: "keyed:other_value@3:Idempotency-Key",
      operator: "other_value",
      step: 3,
    });
    expect((m?.steps("s")[2] as Execute | undefined)?.request.headers).toEqual({
      ...bearer,
      "Idempotency-Key": "K-2",
    });
  });
});

describe("end_state: the field's operator, a count without creates, a count's repeat in a chain", () => {
  const patch = (vessel: string, body: unknown = { name: "Boat" }) =>
    call("PATCH", `/v3/vessels/${vessel}`, {}, {}, body);
  const endState = (resource: string, expect: unknown, segment?: number): Requirement =>
    ({
      id: "e",
      kind: "end_state",
      predicates: ["p"],
      record: { resource, where: {} },
      expect,
      ...(segment === undefined ? {} : { segment }),
    }) as Requirement;

  it("a field written with another value is an other_value mutant", () => {
    const [m] = mutants(
      task([mint, patch("V-412"), answer], [endState("vessels", { is: "field", field: "name" })]),
    );
    expect(m).toMatchObject({ name: "e:other_value@2:name", operator: "other_value", step: 2 });
  });

  it("a count with no create: the resource's last write is dropped", () => {
    const golden = [mint, patch("V-412"), patch("V-204"), patch("V-311"), answer];
    const [m] = mutants(task(golden, [endState("vessels", { is: "count", min: 1 })]));
    expect(m).toMatchObject({ name: "e:drop_step@4", step: 4 });
  });

  it("a solo task's most: the job run twice, no token minted again", () => {
    const [m] = mutants(task(job.golden, [endState("maintenance-orders", { is: "count", max: 1 })]));
    expect(m?.name).toBe("e:repeat@2");
    expect(urls(m?.steps("s") ?? [])).toEqual([
      "/v3/oauth/token",
      "/v3/maintenance-orders",
      "/v3/jobs/{{job}}",
      "/v3/jobs/{{job}}/confirm",
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__again}}",
      "/v3/jobs/{{job__again}}/confirm",
      "answer",
    ]);
  });

  it("a chain's most: the token the create sends minted again first, not a read it uses nor a later mint", () => {
    const skeleton = bankFromContent(skeletonContent());
    const chain = taskOf(skeleton, CHAIN);
    // The create (step 8) also sends the firmware read at step 7, after the segment's mint (step 6);
    // a token minted after the create (step 9) is no token it sent.
    const sent = chain.golden.map((s, i) =>
      i === 7 && s.op === "execute"
        ? { ...s, request: { ...s.request, headers: { ...s.request.headers, "X-Firmware": "{{firmware}}" } } }
        : s,
    );
    const segmentMint = chain.golden[5] as Execute;
    const lateMint = { ...segmentMint, request: { ...segmentMint.request, headers: { "X-Late": "1" } } };
    const golden = [...sent.slice(0, 8), lateMint, ...sent.slice(8)];
    const [m] = requirementMutants(skeleton.worlds[0] as World, { ...chain, golden }, [
      endState("maintenance-orders", { is: "count", max: 1 }, 3),
    ]);
    expect(m?.name).toBe("e:repeat@8");
    const steps = m?.steps("s") ?? [];
    expect(steps).toHaveLength(golden.length + 2);
    expect(steps[8]).toEqual(golden[5]);
    expect((steps[9] as Execute).request.url).toBe("/v3/maintenance-orders");
  });
});

describe("a body key and a fabricated value", () => {
  it("a text body has no keys, not even a string's own (length)", () => {
    const written: Requirement = {
      id: "w",
      kind: "value_written",
      predicates: ["p"],
      call: { method: "PATCH", url_pattern: "^/v3/vessels/" },
      key: "length",
      value: 1,
      alternatives: [2],
    };
    expect(
      mutants(task([mint, call("PATCH", "/v3/vessels/V-412", {}, {}, "text"), answer], [written])),
    ).toEqual([]);
  });

  it("a capture path matches the flow's body key with its dots where they are", () => {
    const flow: G1Predicate = {
      kind: "data_flow",
      id: "f",
      explain: "",
      from_response_url_pattern: "^/v3/vessels$",
      from_status: 200,
      from_body_key: "vessels.0.ab.c",
      answer_field: undefined,
      must_be_stored: false,
      used_in_request_url_pattern: "^/v3/",
    } as G1Predicate;
    const golden = [
      mint,
      call("GET", "/v3/vessels", { w: "vessels.0.a.bc", v: "vessels.0.ab.c" }),
      call("GET", "/v3/vessels/{{w}}/{{v}}"),
      answer,
    ];
    const t = { ...task(golden, [{ id: "v", kind: "value_flow", predicates: ["f"] }]) };
    const withFlow = { ...t, grader: { ...t.grader, g1: [...t.grader.g1, flow] } };
    const [m] = mutants(withFlow);
    expect(m?.name).toBe("v:fabricated@3:v");
    expect((m?.steps("s")[2] as Execute | undefined)?.request.url).toBe("/v3/vessels/{{w}}/FABRICATED-0000");
  });

  it("a GraphQL send's use of the value is replaced too", () => {
    const bank = bankFromContent(skeletonIn("graphql"));
    const t = taskOf(bank, idIn("graphql", SUB03));
    const r: Requirement = { id: "f", kind: "value_flow", predicates: ["firmware_carried_into_order"] };
    const [m] = requirementMutants(bank.worlds[0] as World, t, [r]);
    expect(m?.name).toBe("f:fabricated@3:firmware");
    const sent = m?.steps("s")[2];
    expect(sent?.op).toBe("execute_native");
    expect(JSON.stringify(sent)).toContain("FABRICATED-0000");
    expect(JSON.stringify(sent)).not.toContain("{{firmware}}");
    expect(JSON.stringify(t.golden[2])).toContain("{{firmware}}");
  });
});
