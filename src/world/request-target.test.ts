import { afterAll, describe, expect, it } from "vitest";
import { rawGet } from "../../test/support/raw-http.js";
import { client, plainClient } from "../../test/support/world-test-helpers.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { MAX_PATH_CHARS, malformedPath } from "./request-target.js";
import { inProcessTransport, type ServedWorld, serveTrialWorld } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

const servers: ServedWorld[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** Paths no route can mean, and the reason the world gives for each. */
const MALFORMED: Array<[string, RegExp]> = [
  ["/%E0%A4%A", /not valid percent-encoding/],
  ["/v3/vessels/%E0%A4%A", /not valid percent-encoding/],
  ["/v3/vessels/V-204%zz", /not valid percent-encoding/],
  ["/v3/vessels/%00", /NUL/],
  [`/v3/vessels/${"V".repeat(MAX_PATH_CHARS)}`, new RegExp(`at most ${MAX_PATH_CHARS}`)],
];

describe("a malformed request path", () => {
  it("is refused at the length limit's edge, not before", () => {
    const base = "http://world.local";
    const at = `/${"a".repeat(MAX_PATH_CHARS - 1)}`;
    expect(malformedPath(`${base}${at}`)).toBeNull();
    expect(malformedPath(`${base}${at}a`)?.status).toBe(400);
    // The query is the route's business.
    expect(malformedPath(`${base}/v3/vessels?q=%E0%A4%A`)).toBeNull();
  });

  it("costs its logical second, like any request the world refuses", async () => {
    const trial = new TrialWorld(HARBOR_WORLD, "seed-clock");
    const call = client(inProcessTransport(trial));
    const before = trial.clock;
    expect((await call("GET", "/%E0%A4%A")).status).toBe(400);
    expect(trial.clock).toBe(before + 1);
  });

  it("gets the same 400 in process (Request and plain parts) and over HTTP, and the served world stays up", async () => {
    const served = await serveTrialWorld(new TrialWorld(HARBOR_WORLD, "seed-bad"), 0);
    servers.push(served);
    const port = Number(new URL(served.baseUrl).port);
    const local = client(inProcessTransport(new TrialWorld(HARBOR_WORLD, "seed-bad")));
    const plain = plainClient(inProcessTransport(new TrialWorld(HARBOR_WORLD, "seed-bad")));
    for (const [path, reason] of MALFORMED) {
      const remote = await rawGet(port, path);
      expect(remote.status, path.slice(0, 40)).toBe(400);
      expect(JSON.parse(remote.text)).toMatchObject({
        error: "bad_request",
        message: expect.stringMatching(reason),
      });
      const inProcess = await local("GET", path);
      expect(inProcess.status).toBe(400);
      expect(inProcess.text).toBe(remote.text);
      if (!path.includes("%")) expect((await plain("GET", path)).text).toBe(remote.text);
      // Still up: the spec answers after each.
      expect((await rawGet(port, "/openapi.json")).status).toBe(200);
    }
    // Node's parser refuses a raw NUL and a request line past its header limit: the same JSON 400.
    for (const target of [Buffer.from("/v3/ves\0sels"), `/${"a".repeat(70_000)}`]) {
      const r = await rawGet(port, target);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text).error).toBe("bad_request");
      expect((await rawGet(port, "/openapi.json")).status).toBe(200);
    }
  });
});
