import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../test/support/world-test-helpers.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import type { HintLevel } from "./reply.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/**
 * Issue 16: at hard (a terse world) an error says what is wrong and never names its fix (the
 * renamed field, the accepted values, the methods a path takes, the header to send, a hint); at
 * easy (full) it may. One case per error family, each sent to both levels of the same world.
 */
interface Family {
  name: string;
  status: number;
  /** Send the failing request (with a token carrying every scope). */
  send: (call: ReturnType<typeof client>, token: string) => ReturnType<ReturnType<typeof client>>;
  /** Words or keys that name the fix: present at full, absent at terse. */
  fix: string[];
  /** What is wrong, said at both levels. */
  fault: string;
}

const all = "valves:read valves:write schedules:write";
const FAMILIES: Family[] = [
  {
    name: "validation_failed: a renamed field",
    status: 422,
    send: (c, token) => c("POST", "/v3/schedules", { token, body: { valve_id: "VL-1", durationMin: 5 } }),
    // The renamed field is the fix: not even as a `missing` entry beside the unknown name.
    fix: ["did you mean", "valveId", '"expected"', "sent under another name"],
    fault: "unknown field valve_id",
  },
  {
    name: "validation_failed: a value outside the enum",
    status: 422,
    send: (c, token) =>
      c("POST", "/v3/schedules", { token, body: { valveId: "VL-1", durationMin: 5, mode: "ECO" } }),
    fix: ["one of", "boost", '"allowed"'],
    fault: 'not an accepted value: \\"ECO\\"',
  },
  {
    name: "validation_failed: a wrong type",
    status: 422,
    send: (c, token) => c("POST", "/v3/schedules", { token, body: { valveId: "VL-1", durationMin: "5" } }),
    fix: ["of type integer", '"expected"'],
    fault: "durationMin: wrong type, got string",
  },
  {
    name: "method_not_allowed",
    status: 405,
    send: (c, token) => c("DELETE", "/v3/valves/VL-1", { token }),
    fix: ["allowed: ", "PATCH"],
    fault: "DELETE is not allowed on /v3/valves/VL-1",
  },
  {
    name: "missing_query_parameter",
    status: 400,
    send: (c, token) => c("GET", "/v3/readings", { token }),
    fix: ['"allowed"', "one of A, B, C"],
    fault: "query parameter zone is required",
  },
  {
    name: "invalid_query_parameter",
    status: 400,
    send: (c, token) => c("GET", "/v3/readings?zone=Q", { token }),
    fix: ['"allowed"', "one of A, B, C"],
    fault: 'query parameter zone does not accept \\"Q\\"',
  },
  {
    name: "precondition_required",
    status: 428,
    send: (c, token) => c("PATCH", "/v3/valves/VL-1", { token, body: { zone: "B" } }),
    fix: ["if-match", '"hint"'],
    fault: "this update needs the version of your last read",
  },
  {
    name: "token_expired and friends (401)",
    status: 401,
    send: (c) => c("GET", "/v3/valves", { token: "not-a-token" }),
    fix: ['"hint"', W.auth.token_path],
    fault: "expired or was never issued",
  },
];

async function sendAt(level: HintLevel, family: Family) {
  const trial = new TrialWorld(W, "seed-terse");
  trial.hints = level;
  const call = client(inProcessTransport(trial));
  const { token } = await mintToken(call, W, all);
  return family.send(call, token);
}

describe("a hard task's errors do not name their fix; an easy task's may", () => {
  for (const family of FAMILIES) {
    it(family.name, async () => {
      const full = await sendAt("full", family);
      const terse = await sendAt("terse", family);
      expect(full.status).toBe(family.status);
      expect(terse.status).toBe(family.status);
      const seen = (r: { text: string; headers: Record<string, string> }) =>
        `${r.text} ${r.headers.allow ?? ""}`.toLowerCase();
      // Both say what is wrong, with the same code.
      expect(terse.text).toContain(family.fault);
      expect(full.body.error).toBe(terse.body.error);
      for (const word of family.fix) {
        expect(seen(full), `full names "${word}"`).toContain(word.toLowerCase());
        expect(seen(terse), `terse must not name "${word}"`).not.toContain(word.toLowerCase());
      }
    });
  }
});
