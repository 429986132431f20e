import { describe, expect, it } from "vitest";
import { CHAIN, SUB01, SUB02, skeletonContent } from "../../test/support/test-banks.js";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { Premise } from "../bank/premise-schema.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { premiseFindings } from "./premises.js";

/**
 * The premises gate's nonce-counter claims (a solo task's, a chain's per segment, a chain's
 * segments whose solo tasks claim one) and the call checks premises-checks.test.ts leaves open, on
 * the skeleton's harbour world with a signed read and an open read added (issue 21: the
 * certify-premises area's mutants; premises.test.ts and premises-chains.test.ts check the same on
 * the default bank, whose build is too slow to run for every mutant).
 */
const SIGNED = "/v3/signed-vessels/V-204";
const OPEN = "/v3/open-vessels/V-204";
const STANDS = "The signer's nonce counter stands at 7.";

/** The harbour world with a signed read and an open read of a vessel (`edit` changes it further). */
function harbour(edit: (w: World) => void = () => {}): World {
  const world = structuredClone(skeletonContent().worlds[0]) as World;
  const get = world.routes.find((r) => r.id === "getVessel") as Route;
  world.routes.push(
    { ...get, id: "getVesselSigned", path: "/v3/signed-vessels/{vessel_id}", signed: true },
    { ...get, id: "getVesselOpen", path: "/v3/open-vessels/{vessel_id}", auth_required: false },
  );
  edit(world);
  return world;
}

/** The skeleton bank on that world, each task changed by `edit` (tasks in the order `order` gives). */
function bankOf(
  edit: (t: Task) => Task,
  world = harbour(),
  order: (tasks: Task[]) => Task[] = (tasks) => tasks,
): Bank {
  const content = skeletonContent();
  return bankFromContent({ ...content, worlds: [world], tasks: order(content.tasks.map(edit)) });
}

const taskIn = (bank: Bank, id: string) => bank.tasks.find((t) => t.id === id) as Task;
const counter = (url: string, stands_at: number, segment?: number): Premise =>
  segment === undefined
    ? { kind: "nonce_counter", url, stands_at }
    : { kind: "nonce_counter", url, stands_at, segment };
const only = (id: string, change: Partial<Task>) => (t: Task) => (t.id === id ? { ...t, ...change } : t);
const signedRead = (nonce: number): GoldenStep => ({
  op: "execute",
  request: {
    method: "GET",
    url: SIGNED,
    headers: { "X-Key-Id": "{{client_id}}", "X-Nonce": String(nonce) },
    sign: { secret: "{{client_secret}}" },
  },
  capture: {},
});

async function findingsOf(bank: Bank, id: string) {
  return premiseFindings(bank, taskIn(bank, id));
}

describe("a solo task's nonce counter", () => {
  const sub01 = (premise: Premise, ticket = STANDS, change: Partial<Task> = {}) =>
    bankOf((t) =>
      t.id === SUB01 ? { ...t, premises: [premise], ticket: `${t.ticket} ${ticket}`, ...change } : t,
    );

  it("holds on a signed read: the world refuses the counter's last nonce and takes the counter", async () => {
    expect(await findingsOf(sub01(counter(SIGNED, 7)), SUB01)).toEqual([]);
  });

  it("nonce_counter:unquoted when the ticket does not state the number", async () => {
    expect(await findingsOf(sub01(counter(SIGNED, 7), "The counter is where it was."), SUB01)).toEqual([
      {
        task_id: SUB01,
        check: "nonce_counter:unquoted",
        message: "the ticket does not state the nonce counter 7",
      },
    ]);
  });

  it("nonce_counter:reuse_served and next_refused on a route that takes no signature (a token is asked)", async () => {
    const unsigned = "/v3/vessels/V-204";
    expect(await findingsOf(sub01(counter(unsigned, 7)), SUB01)).toEqual([
      {
        task_id: SUB01,
        check: "nonce_counter:reuse_served",
        message: `the ticket says the nonce counter stands at 7, but the world answers a signed GET ${unsigned} with nonce 6 401 missing_token, not 401 stale_nonce: the key has no such history`,
      },
      {
        task_id: SUB01,
        check: "nonce_counter:next_refused",
        message: `the ticket says the nonce counter stands at 7, but a signed GET ${unsigned} with nonce 7 gets 401 missing_token`,
      },
    ]);
  });

  it("nonce_counter:reuse_served on a route anyone may read (the reused nonce is served, with no error)", async () => {
    expect(await findingsOf(sub01(counter(OPEN, 7)), SUB01)).toEqual([
      {
        task_id: SUB01,
        check: "nonce_counter:reuse_served",
        message: `the ticket says the nonce counter stands at 7, but the world answers a signed GET ${OPEN} with nonce 6 200, not 401 stale_nonce: the key has no such history`,
      },
    ]);
  });

  it("nonce_counter:next_refused when the set-up already signed past the counter", async () => {
    const bank = sub01(counter(SIGNED, 7), STANDS, { setup: [signedRead(12)] });
    expect(await findingsOf(bank, SUB01)).toEqual([
      {
        task_id: SUB01,
        check: "nonce_counter:next_refused",
        message: `the ticket says the nonce counter stands at 7, but a signed GET ${SIGNED} with nonce 7 gets 401 stale_nonce`,
      },
    ]);
  });

  it("nonce_counter:next_refused names a 400 the signed read gets (a bad query), as the reused nonce's", async () => {
    const bad = "/v3/open-vessels?limit=-1";
    const world = harbour((w) => {
      const list = w.routes.find((r) => r.id === "listVessels") as Route;
      w.routes.push({
        ...list,
        id: "listVesselsOpen",
        path: "/v3/open-vessels",
        auth_required: false,
        pagination: { style: "cursor" },
      });
    });
    const bank = bankOf(only(SUB01, { premises: [counter(bad, 7)], ticket: STANDS }), world);
    const checks = (await findingsOf(bank, SUB01)).map((f) => [
      f.check,
      f.message.replace(/.*(with nonce \d .*)/, "$1"),
    ]);
    expect(checks).toEqual([
      ["nonce_counter:reuse_served", expect.stringMatching(/^with nonce 6 400 \S+, not 401 stale_nonce/)],
      ["nonce_counter:next_refused", expect.stringMatching(/^with nonce 7 gets 400 \S+$/)],
    ]);
  });
});

describe("a chain's nonce counter, as its segment starts", () => {
  // The chain's segments: 1 is golden steps 0-1, 2 starts at step 2 (then 3 at step 5).
  const chainWith = (premises: Premise[], golden?: (g: GoldenStep[]) => GoldenStep[]) =>
    bankOf((t) =>
      t.id === CHAIN
        ? { ...t, premises, ticket: `${t.ticket} ${STANDS}`, golden: golden ? golden(t.golden) : t.golden }
        : t,
    );

  it("holds for segment 2 when segment 2 itself signs at the counter (only the earlier segments are played)", async () => {
    const bank = chainWith([counter(SIGNED, 7, 2)], (g) => [...g.slice(0, 2), signedRead(7), ...g.slice(2)]);
    expect(await findingsOf(bank, CHAIN)).toEqual([]);
  });

  it("nonce_counter:next_refused when an earlier segment already signed past it", async () => {
    const bank = chainWith([counter(SIGNED, 7, 2)], (g) => [signedRead(12), ...g]);
    expect((await findingsOf(bank, CHAIN)).map((f) => f.check)).toEqual(["nonce_counter:next_refused"]);
    // Claimed for the first segment, the same chain holds: nothing is played before it.
    const first = chainWith([counter(SIGNED, 12, 1)], (g) => [signedRead(12), ...g]);
    expect(taskIn(first, CHAIN).ticket).not.toContain("stands at 12");
    expect((await findingsOf(first, CHAIN)).map((f) => f.check)).toEqual(["nonce_counter:unquoted"]);
  });

  it("a counter without a segment is checked as the chain starts", async () => {
    const bank = chainWith([counter(SIGNED, 7)], (g) => [...g.slice(0, 2), signedRead(7), ...g.slice(2)]);
    expect(await findingsOf(bank, CHAIN)).toEqual([]);
  });

  it("nonce_counter:segment for a segment the chain's golden does not hold, and nothing else is checked", async () => {
    expect(await findingsOf(chainWith([counter(SIGNED, 7, 9)]), CHAIN)).toEqual([
      {
        task_id: CHAIN,
        check: "nonce_counter:segment",
        message: "the nonce counter is claimed for segment 9, which the chain's golden does not hold",
      },
    ]);
  });
});

describe("a chain carries the counters its segments' solo tasks claim", () => {
  // sub02 (the chain's segment 2) claims the counter at 7; sub01 keeps its call premise.
  const claimed = (premises: Premise[] | undefined, order?: (tasks: Task[]) => Task[]) =>
    bankOf(
      (t) =>
        t.id === SUB02
          ? { ...t, premises: [...(t.premises ?? []), counter(SIGNED, 7)] }
          : t.id === CHAIN
            ? { ...t, premises, ticket: `${t.ticket} ${STANDS}` }
            : t,
      harbour(),
      order,
    );
  const notCarried = (stands: number) => ({
    task_id: CHAIN,
    check: "nonce_counter:not_carried",
    message: `segment 2's step says the nonce counter stands at ${stands} (as ${SUB02} does), but the chain carries no such premise: the world is not seeded with it and nothing checks it`,
  });

  it("a chain carrying it has no finding; one carrying none, another number or another segment is told", async () => {
    const chainFirst = (tasks: Task[]) => [
      ...tasks.filter((t) => t.kind === "chain"),
      ...tasks.filter((t) => t.kind !== "chain"),
    ];
    expect(await findingsOf(claimed([counter(SIGNED, 7, 2)], chainFirst), CHAIN)).toEqual([]);
    expect(await findingsOf(claimed(undefined), CHAIN)).toEqual([notCarried(7)]);
    expect(await findingsOf(claimed([]), CHAIN)).toEqual([notCarried(7)]);
    const other = await findingsOf(claimed([counter(SIGNED, 8, 2)]), CHAIN);
    expect(other.filter((f) => f.check === "nonce_counter:not_carried")).toEqual([notCarried(7)]);
    const elsewhere = await findingsOf(claimed([counter(SIGNED, 7, 3)]), CHAIN);
    expect(elsewhere.filter((f) => f.check === "nonce_counter:not_carried")).toEqual([notCarried(7)]);
  });

  it("reads only the solo task of that position in the chain's world (not the chain, not another world's)", async () => {
    const content = skeletonContent();
    const world = harbour();
    const elsewhere = { ...structuredClone(world), id: "harbor-elsewhere" };
    const sub02 = content.tasks.find((t) => t.id === SUB02) as Task;
    const stray: Task = {
      ...sub02,
      id: "harbor-elsewhere-sub02",
      world: elsewhere.id,
      premises: [counter(SIGNED, 9)],
    };
    const tasks = content.tasks.map((t) =>
      t.id === CHAIN
        ? { ...t, premises: [counter(SIGNED, 7, 2)], ticket: `${t.ticket} ${STANDS}` }
        : t.id === SUB02
          ? { ...t, premises: [counter(SIGNED, 7)] }
          : t,
    );
    const chain = tasks.find((t) => t.id === CHAIN) as Task;
    const bank = bankFromContent({
      ...content,
      worlds: [world, elsewhere],
      tasks: [stray, chain, ...tasks.filter((t) => t !== chain)],
    });
    expect(await findingsOf(bank, CHAIN)).toEqual([]);
  });

  it("a position no solo task holds claims nothing", async () => {
    const content = skeletonContent();
    const bank = bankFromContent({
      ...content,
      worlds: [harbour()],
      tasks: content.tasks.filter((t) => t.positions[0] !== 3 || t.kind === "chain"),
    });
    expect(await findingsOf(bank, CHAIN)).toEqual([]);
  });
});

describe("a quoted call, checks premises-checks.test.ts leaves open", () => {
  it("call:message for a message claimed of a call the world answers without an error", async () => {
    const call = {
      kind: "call",
      method: "GET",
      url: "/v3/vessels/V-204",
      token: "fresh",
      status: 200,
      message: "gone",
    } as Premise;
    const bank = bankOf(only(SUB01, { premises: [call] }));
    expect(await findingsOf(bank, SUB01)).toEqual([
      {
        task_id: SUB01,
        check: "call:message",
        message: `the ticket quotes GET /v3/vessels/V-204's error as "gone", the world says "undefined"`,
      },
    ]);
  });

  it("a code claimed alone, in a world whose messages have a template: the ticket quotes the code, and no message is asked", async () => {
    const world = harbour((w) => {
      w.errors = { shape: "plain", message_template: "Refused: {message}" };
    });
    const stale = {
      kind: "call",
      method: "GET",
      url: "/v3/vessels/V-204",
      token: "stale",
      status: 401,
      error: "invalid_token",
    } as Premise;
    const bank = bankOf(only(SUB01, { premises: [stale] }), world);
    expect(taskIn(bank, SUB01).ticket).toContain("invalid_token");
    expect(await findingsOf(bank, SUB01)).toEqual([]);
  });

  it("an expired token is one spent on the world's canonical listing, wherever the spec lists it", async () => {
    const expired = {
      kind: "call",
      method: "GET",
      url: "/v3/vessels/V-204",
      token: "expired",
      status: 401,
      error: "token_expired",
    } as Premise;
    const decoys: Array<(w: World) => void> = [
      // The create first: a GET on its path spends no token.
      (w) => w.routes.sort((a, b) => Number(b.method === "POST") - Number(a.method === "POST")),
      // A lookalike listing anyone may read first: reading it spends no token either.
      (w) => {
        const list = w.routes.find((r) => r.id === "listVessels") as Route;
        const decoy = { ...list, id: "listVesselsLookalike", path: "/v3/partner-vessels" };
        w.routes.unshift({ ...decoy, status: "lookalike", auth_required: false });
      },
    ];
    for (const decoy of decoys) {
      const world = harbour((w) => {
        decoy(w);
        w.auth.ttl_calls = 2;
      });
      const bank = bankOf(only(SUB01, { premises: [expired], ticket: "token_expired" }), world);
      expect(await findingsOf(bank, SUB01)).toEqual([]);
    }
  });

  it("a placeholder naming no workspace variable is sent as written", async () => {
    const message = "no vessels record with vessel_id '{{nowhere}}'";
    const call = {
      kind: "call",
      method: "GET",
      url: "/v3/vessels/{{nowhere}}",
      token: "fresh",
      status: 404,
      error: "not_found",
      message,
    } as Premise;
    const bank = bankOf(only(SUB01, { premises: [call], ticket: `not_found: ${message}` }));
    expect(await findingsOf(bank, SUB01)).toEqual([]);
  });
});
