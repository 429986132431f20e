import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { versionText } from "../../test/support/stored-log-versions.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { runTrial } from "./run-trial.js";
import { isPlainHead } from "./stored-log-head.js";
import { storedTrialLogOf, V4HeadSchema, V5HeadSchema, V6HeadSchema } from "./stored-trial-log.js";

const bank = skeletonBank();

/** Every stored head (of the version given) of the skeleton bank's golden trials, as JSON.parse gives it. */
async function heads(version: 4 | 5 | 6): Promise<unknown[]> {
  return Promise.all(
    bank.tasks.map(async (task) => {
      const log = storedTrialLogOf(
        await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
        task,
        bank.manifest.content_hash,
      );
      const text = versionText(log, version);
      return JSON.parse(text.slice(0, text.indexOf("\n")));
    }),
  );
}

/** Every path to a value inside `v` (objects and arrays), the root's children first. */
function paths(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (v === null || typeof v !== "object") return [];
  const out: Array<Array<string | number>> = [];
  for (const [k, child] of Object.entries(v)) {
    const p = [...at, Array.isArray(v) ? Number(k) : k];
    out.push(p, ...paths(child, p));
  }
  return out;
}

const ODD_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 60,
  "",
  "x",
  "exchange",
  "variable_write",
  "rest",
  true,
  [],
  {},
  { a: 1 },
  ["a", "a"],
  4,
];

describe.each([
  [4, V4HeadSchema],
  [5, V5HeadSchema],
  [6, V6HeadSchema],
] as const)("isPlainHead, version %i", (version, schema) => {
  it("accepts every head the bank's golden trials store", async () => {
    for (const head of await heads(version)) {
      expect(schema.safeParse(head).success).toBe(true);
      expect(isPlainHead(head, version)).toBe(true);
      // Another version's check refuses it.
      for (const other of [4, 5, 6] as const)
        if (other !== version) expect(isPlainHead(head, other)).toBe(false);
    }
  });

  it("never accepts a head the schema refuses, or one the schema would change: thousands of heads broken at random", async () => {
    const all = await heads(version);
    let refusedByBoth = 0;
    let leftToSchema = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: all.length - 1 }),
        fc.array(
          fc.record({
            where: fc.nat(),
            op: fc.constantFrom("set", "delete", "add"),
            value: fc.constantFrom(...ODD_VALUES),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        (which, edits) => {
          const head = structuredClone(all[which]) as Record<string, unknown>;
          for (const { where, op, value } of edits) {
            const ps = paths(head);
            const path = ps[where % ps.length] as Array<string | number>;
            const parent = path
              .slice(0, -1)
              .reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], head);
            const key = path.at(-1) as string | number;
            const holder = parent as Record<string | number, unknown>;
            if (op === "set") holder[key] = structuredClone(value);
            else if (op === "delete" && !Array.isArray(parent)) delete holder[key];
            else if (op === "add" && !Array.isArray(parent)) holder[`extra_${String(key)}`] = value;
          }
          const parsed = schema.safeParse(head);
          const fast = isPlainHead(head, version);
          if (!parsed.success && !fast) refusedByBoth++;
          if (parsed.success && !fast) leftToSchema++;
          if (!fast) return true;
          // Accepted: the schema accepts it too, and gives the same value (no default filled in).
          return parsed.success && JSON.stringify(sorted(parsed.data)) === JSON.stringify(sorted(head));
        },
      ),
      { numRuns: 3000, seed: 18 },
    );
    // The broken heads did exercise both: most refused, some valid ones left to the schema.
    expect(refusedByBoth).toBeGreaterThan(1000);
    expect(leftToSchema).toBeGreaterThan(0);
  });
});

/** A JSON value with every object's keys sorted, to compare values whatever their key order. */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
}
