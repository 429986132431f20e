import { describe, expect, it } from "vitest";
import { SCRIPTED_AGENTS } from "../agents/scripted-agents.js";
import { type Bank, bankFromContent, serializeBank } from "../bank/bank.js";
import { type GoldenStep, type Task, TaskSchema } from "../bank/task-schema.js";
import { runTrial } from "../run/run-trial.js";
import { bankDatasheet } from "./datasheet.js";
import { defaultBankContent } from "./default-bank.js";
import {
  parseProtocols,
  protocolVariant,
  SIGNED_NOT_CARRIED,
  type VariantProtocol,
} from "./protocol-variants.js";

const bank = bankFromContent(defaultBankContent());
const { golden: GOLDEN, blank: BLANK } = SCRIPTED_AGENTS;
if (!GOLDEN || !BLANK) throw new Error("the golden and blank agents are missing");
const WORLD = "fleet-telemetry";

function variantBank(protocol: VariantProtocol, tasks: readonly Task[]): Bank {
  const world = bank.worlds.find((w) => w.id === WORLD);
  if (!world) throw new Error("no world");
  const v = protocolVariant(world, tasks, protocol);
  if (!v.success) throw new Error(v.error.message);
  return { ...bank, worlds: [v.data.world], tasks: v.data.tasks };
}

/** The golden solution with its first read of a canonical truck sent to the deprecated v1 route instead. */
function decoyed(task: Task): Task | null {
  let done = false;
  const golden = task.golden.map((s): GoldenStep => {
    if (
      done ||
      s.op !== "execute" ||
      s.request.method !== "GET" ||
      !/^\/api\/v3\/trucks\/[^/?]+$/.test(s.request.url)
    )
      return s;
    done = true;
    return { ...s, request: { ...s.request, url: s.request.url.replace("/api/v3/", "/api/v1/") } };
  });
  return done ? { ...task, golden } : null;
}

describe.each(["graphql", "mcp"] as const)("the %s variant of a generated world", (protocol) => {
  const tasks = bank.tasks.filter((t) => t.world === WORLD);

  it("keeps every task: goldens pass and blanks fail under the same graders", async () => {
    const vb = variantBank(protocol, tasks);
    expect(vb.tasks).toHaveLength(tasks.length);
    expect(vb.worlds[0]?.protocol).toBe(protocol);
    // Protocol-native steps only: no REST-shaped POST to the protocol endpoint is left.
    const steps = vb.tasks.flatMap((t) => [...t.setup, ...t.golden]);
    expect(steps.filter((s) => s.op === "execute")).toEqual([]);
    const native = steps.flatMap((s) => (s.op === "execute_native" ? [s.request] : []));
    expect(native.length).toBeGreaterThan(0);
    expect(native.every((r) => r.protocol === protocol)).toBe(true);
    // They are bank data: the task schema reads them back unchanged.
    for (const task of vb.tasks) expect(TaskSchema.parse(JSON.parse(JSON.stringify(task)))).toEqual(task);
    for (const task of vb.tasks) {
      const original = tasks.find((t) => task.id === `${WORLD}-${protocol}-${t.id.slice(WORLD.length + 1)}`);
      expect(task.grader).toEqual(original?.grader);
      const golden = await runTrial({ bank: vb, task, agent: GOLDEN, epoch: 1 });
      expect(golden.grade.failure_reason, task.id).toBe("");
      expect(golden.events.some((e) => e.type === "exchange" && e.protocol === protocol)).toBe(true);
      const blank = await runTrial({ bank: vb, task, agent: BLANK, epoch: 1 });
      expect(blank.grade.passed, task.id).toBe(false);
    }
  }, 120_000);

  it("catches the decoy: a golden that reads the deprecated route fails its constraint", async () => {
    const task = tasks.find(
      (t) => t.grader.constraints.some((c) => c.url_pattern.includes("/api/v1")) && decoyed(t),
    );
    if (!task) throw new Error("no task with a decoy constraint");
    const vb = variantBank(protocol, [decoyed(task) as Task]);
    const [vt] = vb.tasks;
    const r = await runTrial({ bank: vb, task: vt as Task, agent: GOLDEN, epoch: 1 });
    expect(r.grade.passed).toBe(false);
    expect(r.grade.constraints.some((c) => c.violated)).toBe(true);
    expect(
      r.events.some(
        (e) => e.type === "exchange" && e.protocol === protocol && e.url.startsWith("/api/v1/trucks/"),
      ),
    ).toBe(true);
  }, 60_000);
});

describe("variants of worlds that version by header or query, or sign requests", () => {
  it("drop the version carrier and its note: GraphQL fields and MCP tools are not versioned by path", async () => {
    const world = bank.worlds.find((w) => w.versioning?.style === "header");
    if (!world) throw new Error("the default bank has no header-versioned world");
    const tasks = bank.tasks.filter((t) => t.world === world.id && t.kind === "solo").slice(0, 3);
    expect(
      tasks.every((t) => t.versioning?.style === "header" && t.ticket.includes("Api-Version header")),
    ).toBe(true);
    const v = protocolVariant(world, tasks, "mcp");
    if (!v.success) throw new Error(v.error.message);
    expect(v.data.world.versioning).toBeUndefined();
    const vb: Bank = { ...bank, worlds: [v.data.world], tasks: v.data.tasks };
    for (const task of vb.tasks) {
      expect(task.versioning).toBeUndefined();
      expect(task.ticket).not.toContain("Api-Version");
      expect((task.story ?? []).some((s) => s.includes("Api-Version"))).toBe(false);
      const golden = await runTrial({ bank: vb, task, agent: GOLDEN, epoch: 1 });
      expect(golden.grade.failure_reason, task.id).toBe("");
    }
  }, 60_000);

  it("say nothing the protocol makes false: a GraphQL field or MCP tool lists the parameter REST leaves undocumented", () => {
    const claims = /lists no parameters|Nothing in the published spec|parameter is undocumented/;
    const rest = bank.tasks.filter((t) => claims.test(t.ticket));
    expect(rest.some((t) => claims.test(t.ticket))).toBe(true);
    for (const protocol of ["graphql", "mcp"] as const)
      for (const world of bank.worlds) {
        const v = protocolVariant(world, rest, protocol);
        if (!v.success) throw new Error(v.error.message);
        for (const task of v.data.tasks) {
          expect(task.ticket, task.id).not.toMatch(claims);
          // What the ticket asks stays: the record by name, from the registry view.
          const original = rest.find(
            (t) => task.id.endsWith(t.id.slice(world.id.length)) && t.world === world.id,
          );
          const name = original?.ticket.match(/"([^"]+)"/)?.[1];
          if (name) expect(task.ticket).toContain(`"${name}"`);
        }
      }
  });

  it("leave out a task whose golden signs a request, saying why", () => {
    const signed = bank.tasks.find((t) => t.golden.some((s) => s.op === "execute" && s.request.sign));
    if (!signed) throw new Error("the default bank has no task that signs a request");
    const world = bank.worlds.find((w) => w.id === signed.world);
    if (!world) throw new Error("no world");
    const v = protocolVariant(world, [signed], "graphql");
    if (!v.success) throw new Error(v.error.message);
    expect(v.data.tasks).toEqual([]);
    expect(v.data.skipped).toEqual([
      { id: expect.stringContaining(`${world.id}-graphql`), reason: SIGNED_NOT_CARRIED },
    ]);
  });

  it("the datasheet of a bank with variants says which tasks have none, and a REST bank's does not", () => {
    const world = bank.worlds[0];
    if (!world) throw new Error("no world");
    const tasks = bank.tasks.filter((t) => t.world === world.id).slice(0, 2);
    const v = protocolVariant(world, tasks, "mcp");
    if (!v.success) throw new Error(v.error.message);
    const rest = { ...defaultBankContent(), worlds: [world], tasks };
    const withVariants = { ...rest, worlds: [v.data.world], tasks: v.data.tasks };
    const sheet = (c: typeof rest) => bankDatasheet(c, serializeBank(c).manifest);
    expect(sheet(withVariants)).toContain(`GraphQL/MCP variants: 1 worlds, ${v.data.tasks.length} tasks`);
    expect(sheet(withVariants)).toContain(SIGNED_NOT_CARRIED);
    expect(sheet(rest)).not.toContain(SIGNED_NOT_CARRIED);
  });
});

describe("parseProtocols (apiflow generate --protocols)", () => {
  it("parses --protocols", () => {
    expect(parseProtocols("graphql, mcp,graphql")).toEqual({ success: true, data: ["graphql", "mcp"] });
    expect(parseProtocols("rest").success).toBe(false);
    expect(parseProtocols("").success).toBe(false);
  });
});
