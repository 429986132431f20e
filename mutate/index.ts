import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { Stryker } from "@stryker-mutator/core";
import { AREAS, type MutationArea, TARGET_SCORE } from "./areas.js";

/**
 * `npm run mutate [area...]`: mutation testing of what users trust (mutate/areas.ts), one area at a
 * time on one test runner, each score printed beside its target like `npm run bench`. Incremental:
 * each area keeps its results in mutate/incremental/<area>.json, so a rerun tests only the mutants
 * of code or tests that changed. `--force` retests everything. Survivors listed in
 * mutate/accepted-equivalents.txt count as killed; any other survivor is printed.
 */
const args = process.argv.slice(2);
const force = args.includes("--force");
const only = args.filter((a) => !a.startsWith("--"));
const unknown = only.filter((name) => !AREAS.some((a) => a.name === name));
if (unknown.length > 0) {
  process.stderr.write(`unknown area ${unknown.join(", ")}; areas: ${AREAS.map((a) => a.name).join(", ")}\n`);
  process.exit(2);
}

/**
 * Accepted equivalents, `file:line:column Mutator  reason` a line, as how many survivors each key
 * may excuse: Stryker can place two variants of one mutator at one spot (a condition made `true`
 * and made `false`), and a line excuses one of them; the other needs its own line and reason.
 */
const accepted = new Map<string, number>();
for (const line of readFileSync(new URL("./accepted-equivalents.txt", import.meta.url), "utf8").split("\n")) {
  if (line.trim() === "" || line.startsWith("#")) continue;
  const key = line.split(/\s+/).slice(0, 2).join(" ");
  accepted.set(key, (accepted.get(key) ?? 0) + 1);
}

/** Accepted equivalents that excused a survivor; a line left unused in a measured file is stale. */
const matched = new Set<string>();

interface AreaScore {
  area: MutationArea;
  files: Map<string, { killed: number; survived: string[]; equivalent: number }>;
}

const scores: AreaScore[] = [];
for (const area of AREAS) {
  if (only.length && !only.includes(area.name)) continue;
  process.stderr.write(`mutating ${area.name}: ${area.mutate.join(" ")}\n`);
  const results = await new Stryker({
    configFile: "stryker.config.json",
    mutate: area.mutate,
    testFiles: area.tests,
    incrementalFile: `mutate/incremental/${area.name}.json`,
    force,
    jsonReporter: { fileName: `reports/mutation/${area.name}.json` },
  }).runMutationTest();
  const files: AreaScore["files"] = new Map();
  for (const m of results) {
    const file = relative(process.cwd(), m.fileName);
    const row = files.get(file) ?? { killed: 0, survived: [], equivalent: 0 };
    files.set(file, row);
    const where = `${file}:${m.location.start.line}:${m.location.start.column}`;
    if (m.status === "Killed" || m.status === "Timeout") row.killed++;
    else if (m.status === "Survived" || m.status === "NoCoverage") {
      const key = `${where} ${m.mutatorName}`;
      const left = accepted.get(key) ?? 0;
      if (left > 0) {
        accepted.set(key, left - 1);
        row.equivalent++;
        matched.add(key);
      } else {
        const also = matched.has(key) ? " (its accepted line excused another variant at this spot)" : "";
        row.survived.push(`${key} ${m.status}: ${oneLine(m.replacement)}${also}`);
      }
    }
  }
  scores.push({ area, files });
  process.stderr.write(`${table([{ area, files }]).join("\n")}\n`);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

process.stdout.write(`${table(scores).join("\n")}\n`);
// An accepted line left unused (its mutant no longer survives there: the code moved or a test now kills it)
// would silently excuse another mutant one day: list it, to move or delete.
// Only lines an area mutated count: a file split into line ranges (grade-g1.ts) keeps the other
// ranges' equivalents, which this run did not measure.
const measured = scores.flatMap((s) => s.area.mutate.map(lineRange));
const stale = [...accepted].flatMap(([key, unused]) => {
  const [file = "", line = "0"] = key.split(":");
  const inRange = measured.some((m) => m.file === file && m.from <= Number(line) && Number(line) <= m.to);
  return inRange && unused > 0 ? Array.from({ length: unused }, () => key) : [];
});

/** A `mutate` entry's file and lines: `src/a.ts:10-20`, or the whole of `src/a.ts`. */
function lineRange(entry: string): { file: string; from: number; to: number } {
  const [file = "", range] = entry.split(":");
  const [from, to] = range ? range.split("-").map(Number) : [];
  return { file, from: from ?? 1, to: to ?? Number.POSITIVE_INFINITY };
}
if (stale.length > 0) {
  process.stdout.write(
    `\naccepted equivalents matching no survivor (moved or now killed: update or delete them):\n${stale.map((k) => `  ${k}`).join("\n")}\n`,
  );
}

/** The score table: one line per area beside its target, one per mutated file, then the survivors. */
function table(scores: AreaScore[]): string[] {
  const pct = (killed: number, total: number) => (total === 0 ? 100 : (100 * killed) / total);
  const width = Math.max(12, ...scores.flatMap((s) => [...s.files.keys()].map((f) => f.length + 2)));
  const out: string[] = [];
  out.push(`${"area / file".padEnd(width)}  mutants  killed  equiv  survived   score  target  ok`);
  for (const { area, files } of scores) {
    const rows = [...files.entries()];
    const sum = (pick: (r: (typeof rows)[number][1]) => number) => rows.reduce((n, [, r]) => n + pick(r), 0);
    const line = (name: string, killed: number, equiv: number, survived: number, target: string) => {
      const total = killed + equiv + survived;
      const score = pct(killed + equiv, total);
      return `${name.padEnd(width)}  ${String(total).padStart(7)}  ${String(killed).padStart(6)}  ${String(equiv).padStart(5)}  ${String(survived).padStart(8)}  ${score.toFixed(1).padStart(5)}%  ${target.padStart(6)}  ${target ? (score >= TARGET_SCORE ? "yes" : "NO") : ""}`;
    };
    out.push(
      line(
        area.name,
        sum((r) => r.killed),
        sum((r) => r.equivalent),
        sum((r) => r.survived.length),
        `>=${TARGET_SCORE}%`,
      ),
    );
    for (const [file, r] of rows) out.push(line(`  ${file}`, r.killed, r.equivalent, r.survived.length, ""));
    for (const file of area.notYet ?? []) out.push(`  ${file}  (not mutated yet)`);
  }
  const survivors = scores.flatMap((s) => [...s.files.values()].flatMap((r) => r.survived));
  if (survivors.length > 0) {
    out.push("", "survivors (kill with a test, or list in mutate/accepted-equivalents.txt with a reason):");
    out.push(...survivors.map((s) => `  ${s}`));
  }
  return out;
}
