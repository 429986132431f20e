import { describe, expect, it } from "vitest";
import type { Validator } from "../bank/world-schema.js";
import { summarizeProblems, validateBody } from "./validate-body.js";

describe("validateBody", () => {
  const validator: Validator = {
    reject_unknown: true,
    fields: {
      roomCode: { type: "string", required: true },
      acuity: { type: "string", required: true, enum: ["elective", "soon"] },
      crewSize: { type: "integer", required: true },
    },
  } as Validator;

  it("reports every problem, each naming its field", () => {
    const problems = validateBody(validator, { room_code: "R1", acuity: "SOON", extra: 1 }, "create");
    expect(problems.map((p) => [p.field, p.code])).toEqual([
      ["acuity", "invalid_enum"],
      ["extra", "unknown_field"],
      ["room_code", "wrong_name"],
      ["crewSize", "missing"],
      ["roomCode", "missing"],
    ]);
  });

  it("words its problems the same whatever the order of the body's keys or the validator's fields (a bank written with sorted keys answers as in memory)", () => {
    const body = { room_code: "R1", acuity: "SOON", crew_size: 3 };
    const reversed = Object.fromEntries(Object.entries(body).reverse());
    const shuffled = { ...validator, fields: Object.fromEntries(Object.entries(validator.fields).reverse()) };
    const said = summarizeProblems(validateBody(validator, body, "create"));
    expect(summarizeProblems(validateBody(shuffled, reversed, "create"))).toBe(said);
    expect(said).toMatch(/^acuity: must be one of elective, soon, got "SOON"; unknown field crew_size/);
  });
});
