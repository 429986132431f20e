import { describe, expect, it } from "vitest";
import { CHANNEL_TASK, channelTask, REQUIREMENT_WORLD } from "../../test/support/requirement-banks.js";
import { SUB02, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { TrialEvent } from "../world/event-log.js";
import { playAndAnswer, scripted, worldOf } from "./certify-kit.js";
import { legitimateVariants, renewedOnExpiry, runVariant } from "./legitimate-variants.js";
import { legitimateVariantFindings } from "./requirement-gates.js";
import { sharedTrials } from "./trial-tree.js";

/** A grader that takes a data flow's value from the record's own route only (its other sources dropped). */
function ownRouteOnly(task: Task): Task {
  return {
    ...task,
    grader: {
      ...task.grader,
      g1: task.grader.g1.map((p) => {
        if (p.kind !== "data_flow") return p;
        const { also_from: _from, also_used_in: _used, ...rest } = p;
        return rest;
      }),
    },
  };
}

describe("legitimate variants: reading through another valid route", () => {
  it("pass a grader that takes the record's value from any canonical route serving it", async () => {
    const content = skeletonContent();
    const bank = bankFromContent(content);
    const task = taskOf(bank, SUB02);
    // SUB02 reads V-311 on its own v3 route; the variant reads it off the v3 listing.
    expect(legitimateVariants(worldOf(bank, task), task).map((v) => v.name)).toContain("other_route@3");
    expect(await legitimateVariantFindings(bank, task, sharedTrials(bank))).toEqual([]);
  });

  it("catch a grader that takes it from the record's own route only", async () => {
    const content = skeletonContent();
    const bank = bankFromContent({
      ...content,
      tasks: content.tasks.map((t) => (t.id === SUB02 ? ownRouteOnly(t) : t)),
    });
    const failures = await legitimateVariantFindings(bank, taskOf(bank, SUB02), sharedTrials(bank));
    expect(failures.map((f) => f.check)).toEqual(["false_fail:other_route"]);
    expect(failures[0]?.message).toMatch(/^legitimate variant other_route@3 fails: .*no response from/);
  });
});

describe("legitimate variants played as a careful agent plays them", () => {
  // A token that lives two logical seconds: the golden's PATCH is its last call; the failed
  // attempt before it uses that second up, so the PATCH is answered 401 token_expired.
  const shortLived = { ...REQUIREMENT_WORLD, auth: { ...REQUIREMENT_WORLD.auth, ttl_seconds: 2 } };
  const bank = () =>
    bankFromContent({
      ...skeletonContent([]),
      name: "short-lived",
      worlds: [shortLived],
      tasks: [channelTask()],
    });

  it("mint the token anew when the variant's extra call let it expire", async () => {
    const b = bank();
    const task = taskOf(b, CHANNEL_TASK);
    const variant = legitimateVariants(shortLived, task).find((v) => v.name === "failed_attempt@2");
    if (!variant) throw new Error("no failed_attempt variant");
    const runner = sharedTrials(b);
    // Played as written, the PATCH meets an expired token: a false fail of the script, not the grader.
    const plain = await runner.run(
      task,
      scripted(b, "plain", async (session) => {
        await playAndAnswer(session, task, variant.steps);
      }),
    );
    expect(plain.grade.passed).toBe(false);
    expect(
      plain.events.some(
        (e) => e.type === "exchange" && e.status === 401 && /expired/.test(JSON.stringify(e.response_body)),
      ),
    ).toBe(true);
    const careful = await runVariant(b, task, variant, runner);
    expect(careful.grade.passed).toBe(true);
    const urls = careful.events.flatMap((e) =>
      e.type === "exchange" ? [`${e.method} ${e.url} ${e.status}`] : [],
    );
    expect(urls).toEqual([
      "POST /v3/oauth/token 200",
      "PATCH /v3/vessels/V-412 401",
      "POST /v3/oauth/token 200",
      "PATCH /v3/vessels/V-412 200",
    ]);
    expect(await legitimateVariantFindings(b, task, runner)).toEqual([]);
  });

  it("renew a rotating refresh token with the newest one, not the one already spent", () => {
    // Issue 15: an abandoned job followed to its confirmation outlives the chain's token in a
    // refresh-rotation world; a copy of the first grant would send the vault's spent refresh token.
    const grant = (from: string): GoldenStep => ({
      op: "execute",
      request: {
        method: "POST",
        url: "/v3/oauth/token",
        headers: { "Content-Type": "application/json" },
        body: { grant_type: "refresh_token", refresh_token: `{{${from}}}` },
      },
      capture: { tok: "access_token", rt: "refresh_token" },
    });
    const read: GoldenStep = {
      op: "execute",
      request: { method: "GET", url: "/v3/vessels/V-412", headers: { Authorization: "Bearer {{tok}}" } },
      capture: {},
    };
    const exchange = (status: number, body: unknown) =>
      ({
        type: "exchange",
        seq: 0,
        protocol: "rest",
        method: "GET",
        url: "/",
        request_headers: {},
        request_body: null,
        status,
        response_headers: {},
        response_body: body,
      }) as TrialEvent;
    const events = [exchange(200, {}), exchange(200, {}), exchange(401, { error: "token expired" })];
    const renewed = renewedOnExpiry(REQUIREMENT_WORLD, [grant("refresh_token"), read, read], events);
    expect(renewed?.[2]).toMatchObject({ request: { body: { refresh_token: "{{rt}}" } } });
    expect(renewed?.[0]).toMatchObject({ request: { body: { refresh_token: "{{refresh_token}}" } } });
  });
});
