import { describe, expect, it } from "vitest";
import { client, mintToken, plainClient } from "../../test/support/world-test-helpers.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { inProcessTransport } from "../world/transport.js";
import { TrialWorld } from "../world/trial-world.js";
import { gradeConstraint, gradeG1Predicate } from "./grade-g1.js";

// Class 1 of issue 20: the router, the event log and every predicate read one canonical request.
const FORBID_V2 = { kind: "forbid", id: "no_v2", explain: "", url_pattern: "^/v2/" } as const;
const FORBID_PARTNER = {
  kind: "forbid",
  id: "no_partner",
  explain: "",
  url_pattern: "^/v3/partner/",
} as const;

describe.each([
  ["fetch Request", client],
  ["plain", plainClient],
])("one canonical request for router, log and predicates (%s)", (_name, makeClient) => {
  async function served(path: string) {
    const trial = new TrialWorld(HARBOR_WORLD, "seed-canonical");
    const call = makeClient(inProcessTransport(trial));
    const { token } = await mintToken(call, HARBOR_WORLD);
    const res = await call("GET", path, { token });
    const exchanges = trial.log.events.filter((e): e is ExchangeEvent => e.type === "exchange");
    return { res, events: trial.log.events, last: exchanges[exchanges.length - 1] as ExchangeEvent };
  }

  it("an encoded deprecated route is served as the deprecated route, logged canonical, and caught by the forbid", async () => {
    const { res, events, last } = await served("/%762/vessels/V-204");
    expect(res.status).toBe(200);
    expect(last.url).toBe("/v2/vessels/V-204");
    expect(last.raw_url).toBe("/%762/vessels/V-204");
    expect(gradeConstraint(FORBID_V2, events).violated).toBe(true);
  });

  it("duplicate slashes and dot segments do not hide the deprecated route either", async () => {
    const { events, last } = await served("/v3/..//v2/./vessels/V-204");
    expect(last.url).toBe("/v2/vessels/V-204");
    expect(gradeConstraint(FORBID_V2, events).violated).toBe(true);
  });

  it("an encoded look-alike family is caught by its forbid", async () => {
    const { events, last } = await served("/v3/%70artner/vessels/V-204");
    expect(last.url).toBe("/v3/partner/vessels/V-204");
    expect(gradeConstraint(FORBID_PARTNER, events).violated).toBe(true);
  });

  it("an encoded correct read is served and passes the predicate that reads it", async () => {
    const { res, events, last } = await served("/v3/vessels/V%2D204");
    expect(res.status).toBe(200);
    expect(last.url).toBe("/v3/vessels/V-204");
    const read = gradeG1Predicate(
      {
        kind: "data_flow",
        id: "read",
        explain: "",
        from_response_url_pattern: "^/v3/vessels/V-204$",
        from_status: 200,
        from_body_key: "vessel_id",
        must_be_stored: false,
        used_in_request_url_pattern: null,
      },
      events,
      null,
      "seed-canonical",
    );
    expect(read.passed).toBe(true);
    expect(gradeConstraint(FORBID_V2, events).violated).toBe(false);
  });

  it("a plainly written request logs no raw_url", async () => {
    const { last } = await served("/v3/vessels/V-204");
    expect(last.url).toBe("/v3/vessels/V-204");
    expect(last).not.toHaveProperty("raw_url");
  });
});
