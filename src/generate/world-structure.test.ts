import { describe, expect, it } from "vitest";
import { Rng } from "../bank/rng.js";
import type { World } from "../bank/world-schema.js";
import { buildWorld } from "./build-world.js";
import { defaultBankContent } from "./default-bank.js";
import { worldLayout } from "./world-layout.js";
import {
  archetypeTaskCounts,
  archetypeTaskLine,
  routeShape,
  worldStructure,
  worldStructureSection,
} from "./world-structure.js";
import { FLEET_TELEMETRY } from "./worlds/fleet-telemetry.js";
import { WORLD_TEMPLATES } from "./worlds/index.js";

const fleet = buildWorld(FLEET_TELEMETRY, Rng.derive("seed-structure", "world:fleet")).world;

/** The same world with every noun renamed: what the structural figure must not count as new. */
function renamed(w: World): World {
  const text = JSON.stringify(w)
    .replace(/trucks/g, "barges")
    .replace(/truck/g, "barge");
  return { ...(JSON.parse(text) as World), id: "barge-telemetry" };
}

describe("the structural figure of the datasheet", () => {
  it("counts a renaming as the same route graph and auth scheme", () => {
    expect(worldStructure(renamed(fleet)).graph).toBe(worldStructure(fleet).graph);
    expect(worldStructureSection([fleet, renamed(fleet)])).toContain(
      "1 distinct route\ngraphs and 1 distinct auth schemes across 2 worlds",
    );
  });

  it("counts a world with a nested sub-resource route as another graph", () => {
    const [first] = fleet.routes;
    if (!first) throw new Error("no routes");
    const nested: World = {
      ...fleet,
      id: "nested",
      routes: [...fleet.routes, { ...first, id: "nested_list", path: "/api/v3/trucks/{id}/trips/{trip}" }],
    };
    expect(routeShape(nested.routes.at(-1) as World["routes"][number])).toContain("/{2}");
    expect(worldStructure(nested).graph).not.toBe(worldStructure(fleet).graph);
    expect(worldStructureSection([fleet, nested])).toContain("2 distinct route\ngraphs");
  });

  it("reports each world's page cap, rows and short-lived scopes", () => {
    const s = worldStructure(fleet);
    expect(s.pagination).toBe("cursor, 16 a page, at most 25");
    expect(s.rows).toBe(FLEET_TELEMETRY.collectionSize);
    expect(s.auth).toContain("short-lived: trucks:audit 3 s");
  });
});

describe("the default bank's worlds differ in structure", () => {
  const build = (layout: boolean) =>
    WORLD_TEMPLATES.map(
      (t, i) =>
        buildWorld(t, Rng.derive("apiflow-1", `world:${t.id}`), layout ? worldLayout("apiflow-1", 13)[i] : {})
          .world,
    );
  const figure = (section: string) => {
    const m =
      /(\d+) distinct route\ngraphs and (\d+) distinct auth schemes across 13 worlds \((\d+) archetypes\)/.exec(
        section,
      );
    if (!m) throw new Error(`no structural figure in:\n${section}`);
    return { graphs: Number(m[1]), schemes: Number(m[2]), archetypes: Number(m[3]) };
  };

  it("shows at least four route graphs, three auth schemes and four archetypes", () => {
    const f = figure(worldStructureSection(build(true)));
    expect(f.graphs).toBeGreaterThanOrEqual(4);
    expect(f.schemes).toBeGreaterThanOrEqual(3);
    expect(f.archetypes).toBe(4);
  });

  it("shows the same worlds without their layout as renamings (one scheme, one archetype)", () => {
    const f = figure(worldStructureSection(build(false)));
    expect(f.schemes).toBe(1);
    expect(f.archetypes).toBe(1);
    expect(f.graphs).toBeLessThan(4);
  });

  it("counts the versioning styles: one for worlds that differ only in nouns, three in the default bank", () => {
    const styles = (section: string) => Number(/(\d+) versioning styles/.exec(section)?.[1]);
    expect(styles(worldStructureSection([fleet, renamed(fleet)]))).toBe(1);
    const header: World = {
      ...renamed(fleet),
      versioning: { style: "header", name: "Api-Version", prefix: "/api" },
    };
    expect(styles(worldStructureSection([fleet, header]))).toBe(2);
    expect(worldStructure(header).versioning).toBe("header Api-Version (v1, v3)");
    const bank = worldStructureSection(defaultBankContent().worlds);
    expect(styles(bank)).toBe(3);
    expect(bank).toContain("| query api-version (");
  });

  it("names each world's archetype and scheme in its row", () => {
    const section = worldStructureSection(build(true));
    expect(section).toMatch(/\| ledger \| /);
    expect(section).toContain("API key header (X-Api-Key)");
    expect(section).toContain("bearer with refresh-token rotation");
  });
});

/** Issue 16: the archetypes change what tasks do, not only what the worlds serve. */
describe("tasks on archetype routes", () => {
  const content = defaultBankContent();

  it("every archetype beyond flat has solo tasks whose golden calls its own routes", () => {
    const counts = archetypeTaskCounts(content.worlds, content.tasks);
    expect(Object.keys(counts).sort()).toEqual(["ledger", "nested", "search", "workflow"]);
    for (const [archetype, n] of Object.entries(counts)) expect(n, archetype).toBeGreaterThan(0);
    expect(archetypeTaskLine(content.worlds, content.tasks)).toMatch(
      /workflow \d+, nested \d+, ledger \d+, search \d+/,
    );
  });

  it("counts nothing for the same worlds told they are flat, nor for a task's setup", () => {
    const flat = content.worlds.map((w) => ({ ...w, archetype: "flat" as const }));
    expect(Object.values(archetypeTaskCounts(flat, content.tasks))).toEqual([0, 0, 0, 0]);
    const setupOnly = content.tasks.map((t) => ({ ...t, golden: [] }));
    expect(Object.values(archetypeTaskCounts(content.worlds, setupOnly))).toEqual([0, 0, 0, 0]);
  });
});
