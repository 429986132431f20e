import { describe, expect, it } from "vitest";
import {
  type Call,
  client,
  type Exchange,
  mintToken,
  plainClient,
  recording,
} from "../../test/support/world-test-helpers.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/** Requests of every method, with and without bodies, good and broken, on the example world. */
async function scenario(call: Call): Promise<Exchange[]> {
  const { c, out } = recording(call);
  await c("GET", "/openapi.json");
  const { token } = await mintToken(c, W, "valves:read valves:write schedules:write");
  await c("POST", W.auth.token_path, {
    raw: "grant_type=password",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  await c("GET", "/v3/valves", { token });
  await c("GET", "/v3/valves?zone=A&x=%20y", { token });
  const read = await c("GET", "/v3/valves/VL-2", { token });
  await c("PATCH", "/v3/valves/VL-2", {
    token,
    body: { flow_lpm: 1 },
    headers: { "if-match": read.headers.etag as string },
  });
  await c("PATCH", "/v3/valves/VL-2", { token, body: { flow_lpm: 2 }, headers: { "if-match": "stale" } });
  const job = await c("POST", "/v3/schedules", { token, body: { valveId: "VL-1", durationMin: 20 } });
  await c("GET", job.headers.location as string, { token });
  await c("POST", "/v3/work-orders", { token, body: { site: "north" }, headers: { "x-apiflow-wait": "3" } });
  await c("POST", "/v3/work-orders/bulk", {
    token,
    raw: "{oops",
    headers: { "content-type": "application/json" },
  });
  await c("POST", "/v3/work-orders/bulk", { token, raw: "a", headers: { "content-type": "text/plain" } });
  await c("DELETE", "/v3/work-orders/WO-001", { token });
  await c("PUT", "/v3/valves", { token });
  await c("HEAD", "/v3/valves", { token });
  await c("OPTIONS", "/v3/valves", { token });
  await c("BREW", "/v3/valves", { token });
  await c("GET", "/v3/nowhere/../valves/%2e%2e%2fx", { token });
  await c("GET", "/v3//valves/./%56L-2", { token });
  await c("GET", "/v3/valves/VL%2D2?a=%20b", { token });
  await c("GET", "/v3/valves/%2e%2e/valves/VL-2", { token });
  await c("GET", "/v3/valves", { token, headers: { "x-apiflow-wait": "61" } });
  return out;
}

describe("inProcessTransport.plain", () => {
  it("answers exactly as a fetch Request does (status, headers, text, event log, clock)", async () => {
    const viaRequest = new TrialWorld(W, "seed-plain");
    const viaPlain = new TrialWorld(W, "seed-plain");
    const a = await scenario(client(inProcessTransport(viaRequest)));
    const b = await scenario(plainClient(inProcessTransport(viaPlain)));
    expect(b).toEqual(a);
    const statuses = new Set(a.map((e) => e.status));
    for (const s of [200, 202, 204, 400, 404, 405, 409, 415, 429])
      expect([...statuses], `status ${s}`).toContain(s);
    expect(viaPlain.log.events).toEqual(viaRequest.log.events);
    expect(viaPlain.clock).toBe(viaRequest.clock);
  });

  it("the comparison catches a difference: another seed changes what is answered", async () => {
    const a = await scenario(client(inProcessTransport(new TrialWorld(W, "seed-a"))));
    const b = await scenario(plainClient(inProcessTransport(new TrialWorld(W, "seed-b"))));
    expect(b).not.toEqual(a);
  });

  it("hands back the value the text was written from, equal to the parsed text and the logged body", async () => {
    const trial = new TrialWorld(W, "seed-body");
    const transport = inProcessTransport(trial);
    const served = transport.plain;
    if (!served) throw new Error("an in-process transport has plain");
    let handed = 0;
    transport.plain = async (request, text) => {
      const before = trial.log.events.length;
      const res = await served(request, text);
      if (res.body !== undefined) {
        handed++;
        expect(res.body).toEqual(res.text === "" ? null : JSON.parse(res.text));
        const logged = trial.log.events[before];
        expect(logged?.type === "exchange" && logged.response_body).toBe(res.body);
      }
      return res;
    };
    await scenario(plainClient(transport));
    // Most exchanges are served on the plain path; HEAD, unknown methods and encoded paths are not.
    expect(handed).toBeGreaterThan(12);
  });

  it("refuses a method fetch refuses, as sending a Request would", async () => {
    const plain = plainClient(inProcessTransport(new TrialWorld(HARBOR_WORLD, "seed-m")));
    await expect(plain("TRACE", "/v3/vessels")).rejects.toThrow(TypeError);
    await expect(plain("BAD METHOD", "/v3/vessels")).rejects.toThrow(TypeError);
  });
});
