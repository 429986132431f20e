import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../../test/support/world-test-helpers.js";
import { Rng } from "../../bank/rng.js";
import { inProcessTransport } from "../../world/transport.js";
import { TrialWorld } from "../../world/trial-world.js";
import { buildWorld } from "../build-world.js";
import { defaultBankContent } from "../default-bank.js";
import { WORLD_TEMPLATES } from "../worlds/index.js";
import { MIN_LISTING_PAGES, seedAssets } from "./records.js";

/**
 * Issue 16: every world's asset listing takes several pages at the largest page size it allows,
 * refuses a larger one, and the walk the goldens take (`listPages`) is the walk the engine serves.
 */
describe.each(WORLD_TEMPLATES.map((t) => [t.id, t] as const))("the %s listing", (_id, t) => {
  const built = buildWorld(t, Rng.derive("seed-listing", `world:${t.id}`));
  const cap = t.pagination.maxPageSize;
  const path = built.routes.listAssets;

  it(`caps its page size: ${cap} is served, ${cap + 1} is refused`, async () => {
    const call = client(inProcessTransport(new TrialWorld(built.world, "seed-listing")));
    const { token } = await mintToken(call, built.world);
    const size = t.pagination.style === "page" || t.pagination.style === "link" ? "per_page" : "limit";
    const atCap = await call("GET", `${path}?${size}=${cap}`, { token });
    expect(atCap.status).toBe(200);
    expect(atCap.body[t.asset.plural]).toHaveLength(cap);
    expect(atCap.body.total).toBe(t.collectionSize);
    const past = await call("GET", `${path}?${size}=${cap + 1}`, { token });
    expect(past.status).toBe(400);
  });

  it(`holds more than ${MIN_LISTING_PAGES - 1} pages at the cap, and the golden walk reads each record once`, async () => {
    expect(built.assets.length).toBe(t.collectionSize);
    expect(t.collectionSize).toBeGreaterThan((MIN_LISTING_PAGES - 1) * cap);
    const last = t.collectionSize - 1;
    const walk = built.listPages([0, last], true);
    expect(walk.length).toBe(Math.ceil(t.collectionSize / cap));
    expect(walk.length).toBeGreaterThanOrEqual(MIN_LISTING_PAGES);
    // Follow the walk on the engine, filling each `{{name}}` from the page before.
    const call = client(inProcessTransport(new TrialWorld(built.world, "seed-listing")));
    const { token } = await mintToken(call, built.world);
    const bound: Record<string, string> = {};
    const seen: string[] = [];
    for (const page of walk) {
      const url = page.url.replace(/\{\{(\w+)\}\}/g, (_m, n: string) => bound[n] ?? "");
      const r = await call("GET", url, { token });
      expect(r.status, url).toBe(200);
      for (const [name, at] of Object.entries(page.capture ?? {})) bound[name] = r.body[at];
      seen.push(...r.body[t.asset.plural].map((x: Record<string, string>) => x[t.asset.idField]));
      for (const [i, at] of page.items) {
        const [, n] = at.split(".");
        expect(r.body[t.asset.plural][Number(n)][t.asset.idField]).toBe(built.assets[i]?.[t.asset.idField]);
      }
    }
    expect(seen).toEqual(built.assets.map((a) => a[t.asset.idField]));
    // A walk for one record stops at the page that holds it.
    expect(built.listPages([cap], false)).toHaveLength(2);
    expect(built.listPages([cap - 1], false)).toHaveLength(1);
  });
});

describe("a world template whose collection fits in fewer pages", () => {
  it("is refused when its assets are seeded", () => {
    const [t] = WORLD_TEMPLATES;
    if (!t) throw new Error("no templates");
    const small = { ...t, collectionSize: (MIN_LISTING_PAGES - 1) * t.pagination.maxPageSize };
    expect(() => seedAssets(small, Rng.derive("seed-listing", "small"))).toThrow(/fewer than 3 pages/);
    expect(
      seedAssets({ ...small, collectionSize: small.collectionSize + 1 }, Rng.derive("s", "ok")),
    ).toHaveLength(small.collectionSize + 1);
  });
});

describe("the pagination tasks of the default bank", () => {
  it("each have an answer record beyond the first page at the cap, so one page never passes", () => {
    const tasks = defaultBankContent().tasks.filter(
      (t) => t.kind === "solo" && t.axes.includes("pagination"),
    );
    expect(tasks.length).toBeGreaterThanOrEqual(25);
    for (const task of tasks) {
      const pages = task.golden.filter(
        (s) => s.op === "execute" && /[?&](limit|per_page)=/.test(s.request.url),
      );
      expect(pages.length, task.id).toBeGreaterThanOrEqual(MIN_LISTING_PAGES);
      // The last page a record is read from (not a cursor) is a later one.
      const lastRead = pages.findLastIndex(
        (s) => s.op === "execute" && Object.values(s.capture).some((p) => /^[\w-]+\.\d+\.\w+$/.test(p)),
      );
      expect(lastRead, task.id).toBeGreaterThan(0);
    }
  });
});
