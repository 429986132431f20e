import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate } from "../bank/task-schema.js";
import { gradeG1Predicate } from "./grade-g1.js";

/**
 * Which values a data flow takes as candidates, and which reason it gives when none goes where it
 * must (issue 21: mutation testing of `gradeDataFlow` and `recordValues`): an object or null at the
 * key is no value, a value shown again is no new candidate, another route offers the record's value
 * only with its own status, only from the one record whose fields all equal its `where`.
 */
type DataFlow = Extract<G1Predicate, { kind: "data_flow" }>;
const grade = (p: G1Predicate, events: ReturnType<ReturnType<typeof trialLog>["events"]>, card = {}) =>
  gradeG1Predicate(p, events, card, "seed");

const created = (extra: Partial<DataFlow> = {}): DataFlow => ({
  kind: "data_flow",
  id: "job_reported",
  explain: "",
  from_response_url_pattern: "^/jobs$",
  from_status: 201,
  from_body_key: "job_id",
  answer_field: "job",
  must_be_stored: false,
  used_in_request_url_pattern: null,
  ...extra,
});

describe("a data flow's candidates", () => {
  it("are scalars: an object or null at the key is no value, and the reason says none was shown", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: { id: "J-1" } })
      .call("POST", "/jobs", 201, { job_id: null })
      .events();
    const r = grade(created(), events, { job: "J-1" });
    expect(r.passed).toBe(false);
    expect(r.reason).toBe("matching responses carry no value at job_id");
  });

  it("count a value shown again once: the reason is the last distinct value's failing destination", () => {
    // J-1 is not the one reported; J-2 is, but was never stored; J-1 shown again is not a new candidate.
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("POST", "/jobs", 201, { job_id: "J-2" })
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .events();
    const r = grade(created({ must_be_stored: true }), events, { job: "J-2" });
    expect(r.passed).toBe(false);
    expect(r.reason).toBe("the job_id from the response was not stored in a variable");
  });
});

describe("another route serving the record's value (also_from)", () => {
  const berth: DataFlow = {
    kind: "data_flow",
    id: "berth_read",
    explain: "",
    from_response_url_pattern: "^/vessels/V-311$",
    from_status: 200,
    from_body_key: "berth",
    answer_field: "berth",
    must_be_stored: false,
    used_in_request_url_pattern: null,
    also_from: [
      { url_pattern: "^/vessels$", status: 200, body_key: "vessels.berth", where: { vessel_id: "V-311" } },
    ],
  };
  const listing = (...vessels: JsonValue[]) => trialLog().read("/vessels", { vessels }).events();

  it("offers nothing when it answered with another status, even with the record in its body", () => {
    const events = trialLog()
      .call("GET", "/vessels", 503, { vessels: [{ vessel_id: "V-311", berth: "B-7" }] })
      .events();
    const r = grade(berth, events, { berth: "B-7" });
    expect(r.passed).toBe(false);
    expect(r.reason).toBe("no response from /^/vessels/V-311$/ with status 200");
  });

  it("offers no value when its answer does not hold the record", () => {
    const r = grade(berth, listing({ vessel_id: "V-204", berth: "B-1" }), { berth: "B-7" });
    expect(r.passed).toBe(false);
    expect(r.reason).toBe("matching responses carry no value at berth");
  });

  it("takes the record whose fields equal every field of its where, not one sharing a single field", () => {
    const twoFields: DataFlow = {
      ...berth,
      also_from: [
        {
          url_pattern: "^/vessels$",
          status: 200,
          body_key: "vessels.berth",
          where: { vessel_id: "V-311", dock: "north" },
        },
      ],
    };
    const events = listing(
      { vessel_id: "V-311", dock: "south", berth: "B-7" },
      { vessel_id: "V-204", dock: "north", berth: "B-1" },
    );
    expect(grade(twoFields, events, { berth: "B-7" }).passed).toBe(false);
    expect(grade(twoFields, events, { berth: "B-1" }).passed).toBe(false);
    const held = listing({ vessel_id: "V-311", dock: "north", berth: "B-7" });
    expect(grade(twoFields, held, { berth: "B-7" })).toMatchObject({ passed: true, value: "B-7" });
  });

  it("skips a null entry among the listed records and still finds the record", () => {
    const events = listing(null, { vessel_id: "V-311", berth: "B-7" });
    expect(grade(berth, events, { berth: "B-7" })).toMatchObject({ passed: true, value: "B-7" });
  });
});
