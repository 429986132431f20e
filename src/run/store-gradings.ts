import type Database from "better-sqlite3";
import { z } from "zod";
import { type Outcome, OutcomeSchema, TrialKeySchema } from "./trial-record.js";

/**
 * One grading of a run: grading 1 is the one made when the trials ran; each `apiflow regrade`
 * adds the next. The results store keeps every grading's verdicts; the `trials` table holds the
 * latest, so `report` and `compare` read the latest grading without knowing there were others.
 *
 * @example GradingSchema.parse({ id: 2, source: "regrade", grader_version: "1.1.0", grader_bank_hash: null, created: "2026-12-01T12:00:00Z", trials: 467 })
 */
export const GradingSchema = z.strictObject({
  id: z.number().int().positive(),
  /** `run` for the grading made as the trials ran, `regrade` for a re-grade from stored logs. */
  source: z.enum(["run", "regrade"]),
  grader_version: z.string(),
  /** The bank whose graders were used; null when each trial's stored grader was. */
  grader_bank_hash: z.string().nullable(),
  created: z.string(),
  /** Trials this grading holds a verdict for. */
  trials: z.number().int().nonnegative(),
});
export type Grading = z.infer<typeof GradingSchema>;

/** One trial's verdict in one grading. */
export const GradedVerdictSchema = TrialKeySchema.extend({
  outcome: OutcomeSchema,
  passed: z.boolean().nullable(),
  g1_passed: z.boolean().nullable(),
  g2_passed: z.boolean().nullable(),
  failure_reason: z.string(),
  partial_score: z.number().nullable(),
});
export type GradedVerdict = z.infer<typeof GradedVerdictSchema>;

/**
 * Schema of store version 2: every grading's verdicts and what each grading was. Version 1 stores
 * (runs made before gradings existed) are migrated by adding these tables, nothing else changes.
 */
export const GRADINGS_SQL = `
CREATE TABLE IF NOT EXISTS gradings (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  grader_version TEXT NOT NULL,
  grader_bank_hash TEXT,
  created TEXT NOT NULL,
  trials INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS graded_trials (
  grading INTEGER NOT NULL REFERENCES gradings (id),
  bank_hash TEXT NOT NULL,
  agent TEXT NOT NULL,
  task_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  passed INTEGER,
  g1_passed INTEGER,
  g2_passed INTEGER,
  failure_reason TEXT NOT NULL,
  partial_score REAL,
  PRIMARY KEY (grading, bank_hash, agent, task_id, epoch)
) WITHOUT ROWID;
`;

/** The gradings of a results store (see `ResultsStore.gradings`). */
export interface StoreGradings {
  /** Every grading, oldest first; empty for a run never re-graded. */
  list(): Grading[];
  /** One grading's verdicts, in key order. */
  verdicts(id: number): GradedVerdict[];
  /**
   * Add a grading: on the first re-grade the verdicts the trials ran with are kept first as
   * grading 1 (`first`); then the new verdicts are stored and become the trials' current ones.
   * One transaction: all of it or nothing.
   */
  add(
    meta: Omit<Grading, "id" | "trials">,
    verdicts: readonly GradedVerdict[],
    first: Omit<Grading, "id" | "trials">,
  ): Grading;
}

const bool = (b: boolean | null): number | null => (b === null ? null : b ? 1 : 0);
const unbool = (v: unknown): boolean | null => (v === null ? null : v === 1);
const VERDICT_COLUMNS = [
  "outcome",
  "passed",
  "g1_passed",
  "g2_passed",
  "failure_reason",
  "partial_score",
] as const;
const KEY = ["bank_hash", "agent", "task_id", "epoch"] as const;

const OUTCOME_SET: ReadonlySet<unknown> = new Set(OutcomeSchema.options);
const boolOrNull = (v: unknown) => v === null || typeof v === "boolean";
const text = (v: unknown) => typeof v === "string" && v.length > 0;

/**
 * Whether a verdict is what `GradedVerdictSchema` accepts, checked by hand: a re-grade stores one
 * per trial, and the schema's check cost more than the insert. Anything else goes through the
 * schema, which names what is wrong.
 */
function isPlainVerdict(v: GradedVerdict): boolean {
  const r = v as unknown as Record<string, unknown>;
  return (
    text(r.bank_hash) &&
    text(r.agent) &&
    text(r.task_id) &&
    Number.isSafeInteger(r.epoch) &&
    (r.epoch as number) > 0 &&
    OUTCOME_SET.has(r.outcome) &&
    boolOrNull(r.passed) &&
    boolOrNull(r.g1_passed) &&
    boolOrNull(r.g2_passed) &&
    typeof r.failure_reason === "string" &&
    (r.partial_score === null || (typeof r.partial_score === "number" && Number.isFinite(r.partial_score)))
  );
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * The gradings of an open store database. A version 1 store opened read-only has no gradings
 * tables: it lists none, and its `trials` rows are its one grading.
 */
export function storeGradings(db: Database.Database, readonly: boolean): StoreGradings {
  const present = () => hasTable(db, "gradings");
  const list = (): Grading[] =>
    present()
      ? (db.prepare("SELECT * FROM gradings ORDER BY id").all() as Grading[]).map((g) => ({ ...g }))
      : [];
  const verdicts = (id: number): GradedVerdict[] => {
    if (!present()) return [];
    const rows = db
      .prepare(`SELECT * FROM graded_trials WHERE grading = ? ORDER BY ${KEY.join(", ")}`)
      .all(id) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      bank_hash: r.bank_hash as string,
      agent: r.agent as string,
      task_id: r.task_id as string,
      epoch: r.epoch as number,
      outcome: r.outcome as Outcome,
      passed: unbool(r.passed),
      g1_passed: unbool(r.g1_passed),
      g2_passed: unbool(r.g2_passed),
      failure_reason: r.failure_reason as string,
      partial_score: r.partial_score as number | null,
    }));
  };
  const add = db.transaction(
    (
      meta: Omit<Grading, "id" | "trials">,
      rows: readonly GradedVerdict[],
      first: Omit<Grading, "id" | "trials">,
    ): Grading => {
      if (readonly) throw new Error("results store was opened read-only");
      const insertGrading = db.prepare(
        "INSERT INTO gradings (id, source, grader_version, grader_bank_hash, created, trials) VALUES (@id, @source, @grader_version, @grader_bank_hash, @created, @trials)",
      );
      const maxId = (db.prepare("SELECT max(id) FROM gradings").pluck().get() as number | null) ?? 0;
      let id = maxId + 1;
      if (maxId === 0) {
        // The verdicts the trials ran with, kept before anything replaces them.
        const count = db.prepare("SELECT count(*) FROM trials").pluck().get() as number;
        insertGrading.run({ ...first, id: 1, trials: count });
        db.prepare(
          `INSERT INTO graded_trials (grading, ${KEY.join(", ")}, ${VERDICT_COLUMNS.join(", ")})
           SELECT 1, ${KEY.join(", ")}, ${VERDICT_COLUMNS.join(", ")} FROM trials`,
        ).run();
        id = 2;
      }
      const grading: Grading = { ...meta, id, trials: rows.length };
      insertGrading.run(grading);
      // Positional parameters: binding by name costs more than the insert itself on a large re-grade.
      const insert = db.prepare(
        `INSERT INTO graded_trials (grading, ${KEY.join(", ")}, ${VERDICT_COLUMNS.join(", ")})
         VALUES (${["grading", ...KEY, ...VERDICT_COLUMNS].map(() => "?").join(", ")})`,
      );
      for (const row of rows) {
        const v = isPlainVerdict(row) ? row : GradedVerdictSchema.parse(row);
        insert.run(
          id,
          v.bank_hash,
          v.agent,
          v.task_id,
          v.epoch,
          v.outcome,
          bool(v.passed),
          bool(v.g1_passed),
          bool(v.g2_passed),
          v.failure_reason,
          v.partial_score,
        );
      }
      // The new verdicts become the trials' current ones in one statement, not one per trial.
      db.prepare(
        `UPDATE trials SET ${VERDICT_COLUMNS.map((c) => `${c} = g.${c}`).join(", ")}
         FROM graded_trials AS g
         WHERE g.grading = ? AND ${KEY.map((c) => `g.${c} = trials.${c}`).join(" AND ")}`,
      ).run(id);
      return grading;
    },
  );
  return { list, verdicts, add: (meta, rows, first) => add(meta, rows, first) };
}
