import { afterAll, describe, expect, it } from "vitest";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { protocolVariant, type VariantProtocol } from "../generate/protocol-variants.js";
import { runTrial } from "../run/run-trial.js";
import type { Agent, AgentFactory } from "../trial/agent.js";
import { playGolden } from "../trial/play-golden.js";
import {
  httpTransport,
  inProcessTransport,
  type ServedWorld,
  serveTrialWorld,
  type WorldTransport,
} from "./transport.js";
import type { TrialWorld } from "./trial-world.js";

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection, not to the world's answer. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);

interface Raw {
  request: string;
  status: number;
  headers: Record<string, string>;
  text: string;
}

const bank = bankFromContent(defaultBankContent());
const WORLD = "fleet-telemetry";
const servers: ServedWorld[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function variantBank(protocol: VariantProtocol): Bank {
  const world = bank.worlds.find((w) => w.id === WORLD);
  if (!world) throw new Error("no world");
  const v = protocolVariant(
    world,
    bank.tasks.filter((t) => t.world === WORLD),
    protocol,
  );
  if (!v.success) throw new Error(v.error.message);
  return { ...bank, worlds: [v.data.world], tasks: v.data.tasks };
}

/** Records every carrier request and the raw response (status, end-to-end headers, bytes). */
function recording(send: (request: Request) => Promise<Response>, log: Raw[]): WorldTransport {
  return async (request) => {
    const sent = `${request.method} ${new URL(request.url).pathname} ${await request.clone().text()}`;
    const response = await send(request);
    const text = await response.clone().text();
    const headers = Object.fromEntries([...response.headers].filter(([k]) => !HOP_BY_HOP.has(k)));
    log.push({ request: sent, status: response.status, headers, text });
    return response;
  };
}

/** Served over HTTP on 127.0.0.1 once the first request comes (the transport factory is synchronous). */
function overHttp(trial: TrialWorld): WorldTransport {
  let served: Promise<ServedWorld> | undefined;
  return async (request) => {
    served ??= serveTrialWorld(trial, 0).then((s) => {
      servers.push(s);
      return s;
    });
    return httpTransport((await served).baseUrl)(request);
  };
}

/** Wrong requests first (truthful errors), then the golden solution. */
const BAD: Record<VariantProtocol, unknown[]> = {
  graphql: [
    { protocol: "graphql", query: "{ nope" },
    { protocol: "graphql", query: "query { noSuchField }" },
    { protocol: "graphql", query: 'mutation { issueToken(grant_type: "password") }' },
    { protocol: "rest", method: "GET", url: "/api/v3/trucks" },
    { protocol: "rest", method: "GET", url: "/graphql" },
    { protocol: "rest", method: "POST", url: "/graphql", body: "{oops" },
  ],
  mcp: [
    { protocol: "mcp", tool: "no_such_tool" },
    { protocol: "mcp", tool: "issue_token", arguments: { grant_type: "password" } },
    { protocol: "mcp", tool: "issue_token", arguments: {} },
    { protocol: "rest", method: "GET", url: "/api/v3/trucks" },
    { protocol: "rest", method: "GET", url: "/mcp" },
    { protocol: "rest", method: "POST", url: "/mcp", body: "{oops" },
  ],
};

function probingGolden(protocol: VariantProtocol): AgentFactory {
  return {
    name: "probing-golden",
    forTask: (task: Task): Agent => ({
      name: "probing-golden",
      attempt: async (session) => {
        for (const request of BAD[protocol])
          await session.step({ toolCalls: [{ name: "execute", arguments: { request } }] });
        await playGolden(task.golden, session, { versioning: task.versioning });
      },
    }),
  };
}

describe.each(["graphql", "mcp"] as const)("the %s world over both transports", (protocol) => {
  it("answers in-process and over HTTP on loopback byte for byte, with the same event log and grade", async () => {
    const vb = variantBank(protocol);
    const tasks = [
      ...vb.tasks.filter((t) => t.kind === "solo"),
      ...vb.tasks.filter((t) => t.kind === "chain").slice(-1),
    ];
    const statuses = new Set<number>();
    for (const task of tasks) {
      const local: Raw[] = [];
      const remote: Raw[] = [];
      const agent = probingGolden(protocol);
      const a = await runTrial({
        bank: vb,
        task,
        agent,
        epoch: 1,
        transport: (trial) => recording(inProcessTransport(trial), local),
      });
      const b = await runTrial({
        bank: vb,
        task,
        agent,
        epoch: 1,
        transport: (trial) => recording(overHttp(trial), remote),
      });
      expect(a.grade.failure_reason, task.id).toBe("");
      expect(local.length).toBeGreaterThan(BAD[protocol].length);
      expect(remote).toEqual(local);
      // The same operations were logged (request headers differ: the HTTP client adds its own).
      const strip = (events: typeof a.events) =>
        JSON.stringify(events.map((e) => (e.type === "exchange" ? { ...e, request_headers: {} } : e)));
      expect(strip(b.events)).toBe(strip(a.events));
      expect(b.tool_calls).toBe(a.tool_calls);
      expect(b.grade).toEqual(a.grade);
      for (const e of a.events) if (e.type === "exchange") statuses.add(e.status);
    }
    // The operations behind the carriers cover successes and the worlds' truthful errors.
    expect([...statuses].some((s) => s >= 400)).toBe(true);
    expect([...statuses].some((s) => s < 300)).toBe(true);
  }, 180_000);
});
