import { describe, expect, it } from "vitest";
import { jobTaskWithRequirements, REQUIREMENT_WORLD as W } from "../../test/support/requirement-banks.js";
import type { GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import { requirementMutants } from "./golden-mutants.js";

/**
 * Issue 21 (area certify-golden-mutants-operators, session 12): a chain's repeat mints its token
 * again with the newest refresh token only when the mint sends one as a whole placeholder in text.
 * withNewestRefreshToken now reads a mint as the REST call it stands for (i16-variants); a refresh
 * token sent as anything but text (here an array holding a placeholder) is no placeholder to
 * rename, and the mint is sent again as the golden wrote it.
 */

type Execute = Extract<GoldenStep, { op: "execute" }>;
const job = jobTaskWithRequirements();
const [mint, create, poll, confirm, answer] = job.golden as Execute[];
/** The task's own mint, made a refresh grant sending `refresh`. */
const refreshMint = (refresh: unknown, capture: Record<string, string>): Execute => ({
  ...(mint as Execute),
  request: {
    ...(mint as Execute).request,
    body: { grant_type: "refresh_token", refresh_token: refresh as never },
  },
  capture,
});
// The job's one-order requirement (a call count of its confirm): its mutant repeats the whole job.
const once = (job.requirements ?? []).find((r) => r.id === "one_order") as Requirement;
const chain = (golden: GoldenStep[]): Task => ({
  ...job,
  golden,
  requirements: [once],
  kind: "chain",
  positions: [1, 2],
});

describe("a chain's repeat: which mints send the newest refresh token", () => {
  const first = { ...(mint as Execute), capture: { token: "access_token", r1: "refresh_token" } };
  const golden = (renew: Execute) => [first, renew, create, poll, confirm, answer] as GoldenStep[];
  const remint = (renew: Execute) => {
    const [m] = requirementMutants(W, chain(golden(renew)), [once]);
    expect(m?.name).toBe("one_order:repeat@3");
    // The golden's five steps up to the confirm, then the mint sent again.
    return m?.steps("s")[5];
  };

  it("a refresh token sent as text naming a placeholder is the newest one (the control)", () => {
    const renew = refreshMint("{{r1}}", { token: "access_token", r2: "refresh_token" });
    expect(remint(renew)).toEqual(refreshMint("{{r2}}", { token: "access_token", r2: "refresh_token" }));
  });

  it("a refresh token that is no text is kept, even an array holding a placeholder", () => {
    const renew = refreshMint(["{{r1}}"], { token: "access_token", r2: "refresh_token" });
    expect(remint(renew)).toEqual(renew);
  });
});
