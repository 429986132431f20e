/**
 * The folders of src/ are floors: a folder imports only from floors below it, never from a floor
 * above nor from a sibling on its own floor, so the folder graph is a DAG from bank/ up to cli/.
 * `npm run lint` runs this (dependency-cruiser); the README's "How it is built" table describes the
 * same floors. Tests and test support may reach across floors (a test of the world builds a bank
 * with the generator); shipped code may not import them. The floor rules make a cycle between
 * folders impossible; cycles between modules of one folder are not checked here.
 */

/** Bottom to top. Folders on one floor are independent of each other. */
const FLOORS = [
  ["bank"], // schemas, canonical JSON, manifest, seeded Rng
  ["world"], // the engine that serves every world; event log; protocol conversions
  ["workspace"], // the seven tools
  ["trial"], // the trial contract: agent interface, transcript schema, stop conditions, golden steps
  ["mcp"], // the seven tools over MCP: bridge and external agents
  ["agents", "grade"], // agents and their registry; G1/G2 grading
  ["run"], // harness, grid runner, store, transcripts
  ["generate", "certify", "queue", "analyze"], // bank generation; gates; queue; analysis
  ["pipeline"], // certified generation: generate, certify, re-draw, truncate, variants
  ["cli"], // thin commands
];

/** Tests and test support (fixtures, shared test banks and helpers; test/ holds the shared ones). */
const TEST = "(\\.test\\.ts|\\.test-fixture\\.ts|/test-[^/]*\\.ts)$|^test/";
const folder = (names) => `^src/(${names.join("|")})/`;
const ALL = FLOORS.flat();

const layerRules = FLOORS.flatMap((floor, i) =>
  floor.map((name) => {
    const above = FLOORS.slice(i + 1).flat();
    const siblings = floor.filter((n) => n !== name);
    const banned = [...above, ...siblings];
    return {
      name: `layer-${name}`,
      comment: `src/${name}/ is on floor ${i + 1} (${floor.join(", ")}); it may import only from ${
        FLOORS.slice(0, i).flat().join(", ") || "nothing in src/"
      }, never from ${banned.join(", ")} or the package root`,
      severity: "error",
      from: { path: `^src/${name}/`, pathNot: TEST },
      to: {
        path: banned.length ? `${folder(banned)}|^src/index\\.ts$` : "^src/index\\.ts$",
      },
    };
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "no-floor",
      comment: "every folder of src/ is on a floor: add a new folder to FLOORS in .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^src/[^/]+/", pathNot: `${folder(ALL)}|${TEST}` },
      to: {},
    },
    {
      name: "no-test-support-in-shipped-code",
      comment: "shipped code does not import tests or test support",
      severity: "error",
      from: { path: "^src/", pathNot: TEST },
      to: { path: TEST },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".cjs", ".json"] },
  },
};
