import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import { HARBOR_STORYLINE } from "../generate/harbor-tasks.js";
import type { TrialEvent } from "../world/event-log.js";
import { gradeTrial } from "./grade-trial.js";

const json: fc.Arbitrary<JsonValue> = fc.jsonValue() as fc.Arbitrary<JsonValue>;
const url = fc.constantFrom(
  "/v3/oauth/token",
  "/v3/vessels/V-204",
  "/v2/vessels/V-204",
  "/v3/maintenance-orders",
  "/v3/maintenance-orders/MO-1",
);
const event: fc.Arbitrary<Omit<TrialEvent, "seq">> = fc.oneof(
  fc.record({
    type: fc.constant("exchange" as const),
    protocol: fc.constant("rest" as const),
    method: fc.constantFrom("GET", "POST"),
    url,
    request_headers: fc.dictionary(fc.constantFrom("authorization", "content-type"), fc.string()),
    request_body: fc.option(json, { nil: null }),
    status: fc.constantFrom(200, 201, 401, 404),
    response_headers: fc.constant({}),
    response_body: fc.oneof(
      json,
      fc.record({ firmware_build: fc.string(), order_id: fc.string(), access_token: fc.string() }),
    ),
  }),
  fc.record({
    type: fc.constant("variable_write" as const),
    scope: fc.constantFrom("local" as const, "global" as const),
    name: fc.constantFrom("maintenance_order_id", "token"),
    value: json,
  }),
);
const events = fc
  .array(event, { maxLength: 12 })
  .map((list) => list.map((e, seq) => ({ ...e, seq }) as TrialEvent));
const card = fc.dictionary(fc.constantFrom("order_id", "status", "firmware_build", "extra"), json);
const finalMessage = fc.oneof(
  fc.constant(null),
  fc.string(),
  card.map((c) => `Here you go.\n\`\`\`json\n${JSON.stringify(c)}\n\`\`\``),
);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe("gradeTrial is pure", () => {
  const graders = HARBOR_STORYLINE.map((s) => s.grader);

  it("the same event log and final message always give the same grade, and the input is not touched", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...graders),
        events,
        finalMessage,
        fc.string(),
        (grader, evs, message, seed) => {
          const frozen = deepFreeze(structuredClone(evs));
          const a = gradeTrial({ grader, trialSeed: seed, events: frozen, finalMessage: message });
          const b = gradeTrial({
            grader,
            trialSeed: seed,
            events: structuredClone(evs),
            finalMessage: message,
          });
          expect(b).toEqual(a);
          expect(frozen).toEqual(evs);
          expect(a.passed).toBe(a.g1_passed && a.g2_passed);
          expect(a.partial_score).toBeGreaterThanOrEqual(0);
          expect(a.partial_score).toBeLessThanOrEqual(1);
          expect(a.failure_reason === "").toBe(a.passed);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the order of keys in the answer card does not change the grade", () => {
    fc.assert(
      fc.property(fc.constantFrom(...graders), events, card, (grader, evs, c) => {
        const reversed = Object.fromEntries(Object.entries(c).reverse());
        const msg = (o: object) => `\`\`\`json\n${JSON.stringify(o)}\n\`\`\``;
        expect(gradeTrial({ grader, trialSeed: "s", events: evs, finalMessage: msg(c) })).toEqual(
          gradeTrial({ grader, trialSeed: "s", events: evs, finalMessage: msg(reversed) }),
        );
      }),
      { numRuns: 300 },
    );
  });
});
