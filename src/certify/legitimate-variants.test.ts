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
    // The run is labelled by its variant and its renewal.
    expect(careful.agent).toBe("variant-failed_attempt@2+renew1");
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

  it("give up after three renewals when a fresh token expires too", async () => {
    // A token that lives one logical second expires before any call can use it: each renewal fails
    // the same way, and the careful agent stops after the third.
    const world = { ...REQUIREMENT_WORLD, auth: { ...REQUIREMENT_WORLD.auth, ttl_seconds: 1 } };
    const b = bankFromContent({
      ...skeletonContent([]),
      name: "instant",
      worlds: [world],
      tasks: [channelTask()],
    });
    const task = taskOf(b, CHANNEL_TASK);
    const variant = legitimateVariants(world, task).find((v) => v.name === "failed_attempt@2");
    if (!variant) throw new Error("no failed_attempt variant");
    const shared = sharedTrials(b);
    const agents: string[] = [];
    const r = await runVariant(b, task, variant, {
      run: (t, agent) => {
        agents.push(agent.name);
        return shared.run(t, agent);
      },
    });
    expect(r.grade.passed).toBe(false);
    expect(agents).toEqual([
      "variant-failed_attempt@2",
      "variant-failed_attempt@2+renew1",
      "variant-failed_attempt@2+renew2",
      "variant-failed_attempt@2+renew3",
    ]);
  });
});

describe("renewedOnExpiry", () => {
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
  const expired = exchange(401, { error: "token_expired", message: "the token expired" });
  const grant = (capture: Record<string, string>, secret = "{{client_secret}}"): GoldenStep => ({
    op: "execute",
    request: {
      method: "POST",
      url: "/v3/oauth/token",
      headers: { "Content-Type": "application/json" },
      body: { grant_type: "client_credentials", client_id: "{{client_id}}", client_secret: secret },
    },
    capture,
  });
  const call = (
    headers: Record<string, string> = { Authorization: "Bearer {{tok}}" },
    capture = {},
  ): GoldenStep => ({
    op: "execute",
    request: { method: "GET", url: "/v3/vessels/V-412", headers },
    capture,
  });

  it("finds the expired call among the sends only, and the exchanges only", () => {
    const steps: GoldenStep[] = [{ op: "read_spec" }, grant({ tok: "access_token" }), call()];
    const write = {
      type: "variable_write",
      seq: 0,
      name: "x",
      scope: "local",
      value: 1,
    } as unknown as TrialEvent;
    // A 200 that mentions an expiry is no expired token.
    const events = [exchange(200, { note: "certificate expired last year" }), write, expired];
    expect(renewedOnExpiry(REQUIREMENT_WORLD, steps, events)).toEqual([
      steps[0],
      steps[1],
      steps[1],
      steps[2],
    ]);
  });

  it("is null when no call expired, and renews from the last mint before the call that captured its token", () => {
    const steps: GoldenStep[] = [grant({ tok: "access_token" }), call()];
    expect(
      renewedOnExpiry(REQUIREMENT_WORLD, steps, [
        exchange(200, {}),
        exchange(401, { error: "invalid_token" }),
      ]),
    ).toBeNull();
    const later = grant({ tok: "access_token" }, "{{later_secret}}");
    // A send capturing the token that is no mint, and a mint after the call, are not it.
    const spoof = call({}, { tok: "vessel_id" });
    const many: GoldenStep[] = [grant({ tok: "access_token" }), spoof, call(), later];
    expect(renewedOnExpiry(REQUIREMENT_WORLD, many, [exchange(200, {}), exchange(200, {}), expired])).toEqual(
      [many[0], spoof, many[0], many[2], later],
    );
    // A mint that binds one of the headers' placeholders is the one (the other is a key, say).
    const two = call({ Authorization: "Bearer {{tok}}", "X-Key": "{{key}}" });
    const renewed = renewedOnExpiry(
      REQUIREMENT_WORLD,
      [grant({ tok: "access_token" }), two],
      [exchange(200, {}), expired],
    );
    expect(renewed?.[1]).toEqual(grant({ tok: "access_token" }));
  });

  it("resends a rotated credential only where the body sends exactly one placeholder; a body that is no object is sent as is", () => {
    const rotating: GoldenStep = {
      op: "execute",
      request: {
        method: "POST",
        url: "/v3/oauth/token",
        body: {
          grant_type: "refresh_token",
          refresh_token: "x{{refresh_token}}",
          token_hint: "{{hint}}x",
          scope: "{{scope}}",
        },
      },
      capture: { tok: "access_token", rt: "refresh_token", th: "token_hint", sc: "scope" },
    };
    const renewed = renewedOnExpiry(REQUIREMENT_WORLD, [rotating, call()], [exchange(200, {}), expired]);
    expect(renewed?.[1]).toMatchObject({
      request: {
        body: {
          grant_type: "refresh_token",
          refresh_token: "x{{refresh_token}}",
          token_hint: "{{hint}}x",
          scope: "{{sc}}",
        },
      },
    });
    const form: GoldenStep = {
      op: "execute",
      request: { method: "POST", url: "/v3/oauth/token", body: "grant_type=client_credentials" },
      capture: { tok: "access_token" },
    };
    expect(renewedOnExpiry(REQUIREMENT_WORLD, [form, call()], [exchange(200, {}), expired])?.[1]).toEqual(
      form,
    );
  });
});
