import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../test/support/world-test-helpers.js";
import type { ErrorStyle, World } from "../bank/world-schema.js";
import { EXAMPLE_WORLD } from "./example-world.js";
import { renderOpenApi } from "./openapi.js";
import { errorKeyPath, fail, phraseError, readError, renderProblem, styleReply } from "./reply.js";
import { inProcessTransport, serveTrialWorld } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

const STYLES: ErrorStyle[] = [
  { shape: "plain", code_case: "upper", message_template: "Sorry, {message}." },
  { shape: "problem", message_template: "{message} ({status})" },
  { shape: "errors", code_case: "kebab" },
  { shape: "fault", code_case: "pascal", message_template: "{code}: {message}" },
];

function at(body: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | null)?.[k], body);
}

describe("per-world error style", () => {
  it("leaves a world without a style, and a plain style, byte-identical to the semantic error", () => {
    const reply = fail(429, "rate_limited", "slow down", { retry_after: 4 });
    expect(styleReply(undefined, reply)).toBe(reply);
    expect(styleReply({ shape: "plain" }, reply)).toBe(reply);
    expect(reply.body).toEqual({ error: "rate_limited", message: "slow down", retry_after: 4 });
  });

  it("keeps every hint an agent needs in the body, in every shape, and reads its code and message back", () => {
    const extra = { retry_after: 4, hint: "wait 4 s", allowed: ["eco", "boost"], errors: [{ field: "x" }] };
    for (const style of STYLES) {
      const body = renderProblem(style, 429, { code: "rate_limited", message: "slow down", extra });
      for (const [key, value] of Object.entries(extra))
        expect(at(body, errorKeyPath(style, key))).toEqual(value);
      expect(readError(body)).toEqual(phraseError(style, "rate_limited", "slow down", 429));
    }
    // The shapes really differ: four styles, four different bodies.
    const bodies = STYLES.map((s) =>
      JSON.stringify(renderProblem(s, 429, { code: "c", message: "m", extra })),
    );
    expect(new Set(bodies).size).toBe(STYLES.length);
    expect(readError({ vessels: [] })).toBeNull();
  });

  it("words the engine's errors in the world's style over both transports, with the same bytes", async () => {
    for (const style of STYLES) {
      const world: World = { ...EXAMPLE_WORLD, errors: style };
      const trial = new TrialWorld(world, "seed-style");
      const call = client(inProcessTransport(trial));
      const { token } = await mintToken(call, world, "valves:read valves:write schedules:write");
      const invalid = await call("POST", "/v3/schedules", {
        token,
        body: { valve_id: "V-1", mode: "turbo" },
      });
      expect(invalid.status).toBe(422);
      const seen = readError(invalid.body);
      expect(seen?.code).toBe(phraseError(style, "validation_failed", "").code);
      const problems = at(invalid.body, errorKeyPath(style, "errors")) as Array<{ code: string }>;
      expect(problems.map((p) => p.code)).toContain("invalid_enum");
      expect(invalid.headers["content-type"]).toBe(
        style.shape === "problem" ? "application/problem+json" : "application/json",
      );
      const unauthorised = await call("GET", "/v3/valves", { token: "nope" });
      expect(readError(unauthorised.body)?.code).toBe(phraseError(style, "invalid_token", "").code);
      expect(String(at(unauthorised.body, errorKeyPath(style, "hint")))).toContain("oauth");

      const again = new TrialWorld(world, "seed-style");
      const served = await serveTrialWorld(again);
      try {
        const overHttp = await fetch(`${served.baseUrl}/v3/valves`, {
          headers: { authorization: "Bearer nope" },
        });
        expect(await overHttp.text()).toBe(unauthorised.text);
      } finally {
        await served.close();
      }
    }
  });

  it("documents each world's error body in its spec, with an example in its style", () => {
    for (const style of STYLES) {
      const spec = renderOpenApi({ ...EXAMPLE_WORLD, errors: style });
      const schema = spec.components.schemas.Error as { examples: unknown[] };
      expect(readError(schema.examples[0])?.code).toBe(phraseError(style, "not_found", "").code);
      const media = style.shape === "problem" ? "application/problem+json" : "application/json";
      const get = spec.paths["/v3/valves"]?.get as { responses: Record<string, { content?: object }> };
      const responses = get.responses;
      expect(Object.keys(responses["401"]?.content ?? {})).toEqual([media]);
    }
  });
});
