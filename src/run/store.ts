import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import { GRADINGS_SQL, type GradedVerdict, type StoreGradings, storeGradings } from "./store-gradings.js";
import { type TrialKey, type TrialRecord, TrialRecordSchema } from "./trial-record.js";

/**
 * The layout of a run directory, shared by `apiflow run`, `apiflow import` and `apiflow report`:
 *
 * ```
 * <run-dir>/results.sqlite                          one row per trial (this module)
 * <run-dir>/run-manifest.json                       what produced the run (RunManifestSchema)
 * <run-dir>/transcripts/<agent>/<task_id>-t<N>.json one transcript per trial (1.0 layout)
 * ```
 */
export const RUN_LAYOUT = {
  store: "results.sqlite",
  manifest: "run-manifest.json",
  transcripts: "transcripts",
} as const;

/**
 * Bumped when the store changes shape; a store of a newer version is refused. 2 added the
 * gradings tables (`store-gradings.ts`): a version 1 store is migrated when opened for writing
 * and read as it is when opened read-only.
 */
export const STORE_VERSION = 2;

/** Older store versions this one still reads. */
const READABLE_VERSIONS: ReadonlySet<string> = new Set(["1", String(STORE_VERSION)]);

/** The transcript path of a trial, relative to its run directory. */
export function transcriptRelPath(agent: string, taskId: string, epoch: number): string {
  return `${RUN_LAYOUT.transcripts}/${agent}/${taskId}-t${epoch}.json`;
}

/**
 * `run-manifest.json`: what produced a run. The runner and the importer both write it; extra keys
 * (agent settings, price-table version, …) pass through.
 */
export const RunManifestSchema = z.looseObject({
  schema_version: z.literal(1),
  /** `run` for `apiflow run`, `import-official` for `apiflow import official`. */
  source: z.string(),
  created: z.string(),
  bank_hash: z.string().nullable(),
  agents: z.array(z.string()),
});
export type RunManifest = z.infer<typeof RunManifestSchema>;

/** Write `run-manifest.json` atomically (write then rename), so a reader never sees half a file. */
export function writeRunManifest(runDir: string, manifest: RunManifest): void {
  const path = join(runDir, RUN_LAYOUT.manifest);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(RunManifestSchema.parse(manifest), null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** Read `run-manifest.json`; `null` when the run has none or it does not parse. */
export function readRunManifest(runDir: string): RunManifest | null {
  const path = join(runDir, RUN_LAYOUT.manifest);
  if (!existsSync(path)) return null;
  try {
    const parsed = RunManifestSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Filter for `ResultsStore.query`; every field optional, all given ones must match. */
export interface TrialQuery {
  bank_hash?: string;
  agent?: string;
  task_id?: string;
  kind?: "solo" | "chain";
}

/**
 * The embedded results store of one run (`<run-dir>/results.sqlite`). SQLite in WAL mode with one
 * transaction per write: a process killed at any instant (`kill -9`) leaves a store that opens and
 * holds whole rows only, and a resumed run asks `has(key)` to redo nothing that finished.
 *
 * @example
 * const store = openStore("runs/2026-08-01");
 * if (!store.has(key)) store.record(await runTrial(key));
 * for (const rec of store.all()) console.log(rec.task_id, rec.outcome);
 * store.close();
 */
export interface ResultsStore {
  readonly runDir: string;
  /** Whether a trial with this key was recorded (any outcome). */
  has(key: TrialKey): boolean;
  /** The recorded trial, or null. */
  get(key: TrialKey): TrialRecord | null;
  /** Insert or replace one trial (validated; idempotent), in its own transaction. */
  record(rec: TrialRecord): void;
  /** Insert or replace many trials in one transaction (all or none: the importer's batches). */
  recordMany(recs: readonly TrialRecord[]): void;
  /** Every trial, in key order, streamed from disk. */
  all(): IterableIterator<TrialRecord>;
  /**
   * Every trial's current verdict and transcript, in key order: what a re-grade compares, read at
   * once and without the columns it never reads (a third of the cost of `all` on a large run).
   */
  verdicts(): TrialVerdict[];
  /** Trials matching a filter, in key order. */
  query(filter: TrialQuery): TrialRecord[];
  count(): number;
  /** Every grading of the run and their verdicts (the `trials` rows are the latest grading). */
  readonly gradings: StoreGradings;
  close(): void;
}

/** A trial's current verdict, with its transcript's path (see `ResultsStore.verdicts`). */
export type TrialVerdict = GradedVerdict & Pick<TrialRecord, "transcript">;

export type OpenStoreError =
  | { code: "store_version"; message: string }
  | { code: "store_unreadable"; message: string };

const COLUMNS = [
  "bank_hash",
  "agent",
  "task_id",
  "epoch",
  "world",
  "kind",
  "position",
  "length",
  "axis",
  "outcome",
  "passed",
  "g1_passed",
  "g2_passed",
  "failure_reason",
  "partial_score",
  "tokens_input",
  "tokens_output",
  "tokens_cache_read",
  "tokens_cache_write",
  "tokens_total",
  "cost_usd",
  "duration_s",
  "stop_reason",
  "transcript",
] as const;

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
  bank_hash TEXT NOT NULL,
  agent TEXT NOT NULL,
  task_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  world TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('solo', 'chain')),
  position INTEGER,
  length INTEGER,
  axis TEXT,
  outcome TEXT NOT NULL,
  passed INTEGER,
  g1_passed INTEGER,
  g2_passed INTEGER,
  failure_reason TEXT NOT NULL,
  partial_score REAL,
  tokens_input REAL NOT NULL,
  tokens_output REAL NOT NULL,
  tokens_cache_read REAL NOT NULL,
  tokens_cache_write REAL NOT NULL,
  tokens_total REAL NOT NULL,
  cost_usd REAL,
  duration_s REAL NOT NULL,
  stop_reason TEXT,
  transcript TEXT,
  PRIMARY KEY (bank_hash, agent, task_id, epoch)
) WITHOUT ROWID;
`;

type Row = Record<(typeof COLUMNS)[number], string | number | null>;

const bool = (b: boolean | null): number | null => (b === null ? null : b ? 1 : 0);
const unbool = (v: string | number | null): boolean | null => (v === null ? null : v === 1);

function toRow(r: TrialRecord): Row {
  return {
    bank_hash: r.bank_hash,
    agent: r.agent,
    task_id: r.task_id,
    epoch: r.epoch,
    world: r.world,
    kind: r.kind,
    position: r.position,
    length: r.length,
    axis: r.axis,
    outcome: r.outcome,
    passed: bool(r.passed),
    g1_passed: bool(r.g1_passed),
    g2_passed: bool(r.g2_passed),
    failure_reason: r.failure_reason,
    partial_score: r.partial_score,
    tokens_input: r.tokens.input,
    tokens_output: r.tokens.output,
    tokens_cache_read: r.tokens.cache_read,
    tokens_cache_write: r.tokens.cache_write,
    tokens_total: r.tokens.total,
    cost_usd: r.cost_usd,
    duration_s: r.duration_s,
    stop_reason: r.stop_reason,
    transcript: r.transcript,
  };
}

// Rows were validated on the way in, so reading maps columns back without re-parsing (a report
// over 56,000 trials should not pay for 56,000 schema checks).
function fromRow(row: Row): TrialRecord {
  return {
    bank_hash: row.bank_hash as string,
    agent: row.agent as string,
    task_id: row.task_id as string,
    epoch: row.epoch as number,
    world: row.world as string,
    kind: row.kind as "solo" | "chain",
    position: row.position as number | null,
    length: row.length as number | null,
    axis: row.axis as string | null,
    ...verdictOfRow(row),
    tokens: {
      input: row.tokens_input as number,
      output: row.tokens_output as number,
      cache_read: row.tokens_cache_read as number,
      cache_write: row.tokens_cache_write as number,
      total: row.tokens_total as number,
    },
    cost_usd: row.cost_usd as number | null,
    duration_s: row.duration_s as number,
    stop_reason: row.stop_reason as string | null,
    transcript: row.transcript as string | null,
  };
}

function verdictOfRow(row: Row): Omit<GradedVerdict, keyof TrialKey> {
  return {
    outcome: row.outcome as TrialRecord["outcome"],
    passed: unbool(row.passed),
    g1_passed: unbool(row.g1_passed),
    g2_passed: unbool(row.g2_passed),
    failure_reason: row.failure_reason as string,
    partial_score: row.partial_score as number | null,
  };
}

const QUERY_KEYS = ["bank_hash", "agent", "task_id", "kind"] as const satisfies ReadonlyArray<
  keyof TrialQuery
>;
const KEY_WHERE = "bank_hash = @bank_hash AND agent = @agent AND task_id = @task_id AND epoch = @epoch";
const ORDER = "ORDER BY bank_hash, agent, task_id, epoch";

/** Bring a writable store of an older readable version up to `STORE_VERSION`, in one transaction. */
function migrate(db: Database.Database): void {
  db.transaction(() => {
    const version = db.prepare("SELECT value FROM meta WHERE key = 'store_version'").pluck().get();
    if (version !== "1" && version !== String(STORE_VERSION)) return;
    db.exec(GRADINGS_SQL);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'store_version'").run(String(STORE_VERSION));
  })();
}

/**
 * Open (creating if needed) the results store of a run directory.
 *
 * @example const res = tryOpenStore("runs/x"); if (!res.success) console.error(res.error.message);
 */
export function tryOpenStore(
  runDir: string,
  opts: { readonly?: boolean } = {},
): { success: true; data: ResultsStore } | { success: false; error: OpenStoreError } {
  const path = join(runDir, RUN_LAYOUT.store);
  if (opts.readonly && !existsSync(path)) {
    return {
      success: false,
      error: { code: "store_unreadable", message: `no ${RUN_LAYOUT.store} in ${runDir}` },
    };
  }
  let db: Database.Database;
  try {
    if (!opts.readonly) mkdirSync(runDir, { recursive: true });
    db = new Database(path, { readonly: Boolean(opts.readonly), fileMustExist: Boolean(opts.readonly) });
  } catch (e) {
    return {
      success: false,
      error: { code: "store_unreadable", message: `${path}: ${(e as Error).message}` },
    };
  }
  try {
    if (!opts.readonly) {
      // WAL + synchronous=NORMAL: a killed process loses at most the transaction in flight, never
      // a committed one, and the file is never left half-written.
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("busy_timeout = 5000");
      db.exec(SCHEMA_SQL);
      db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('store_version', ?)").run(
        String(STORE_VERSION),
      );
      migrate(db);
    }
    const version = (
      db.prepare("SELECT value FROM meta WHERE key = 'store_version'").get() as { value: string } | undefined
    )?.value;
    if (
      version === undefined ||
      !READABLE_VERSIONS.has(version) ||
      (!opts.readonly && version !== String(STORE_VERSION))
    ) {
      db.close();
      return {
        success: false,
        error: {
          code: "store_version",
          message: `${path} is store version ${version ?? "?"}, this apiflow reads version${opts.readonly ? `s ${[...READABLE_VERSIONS].join(" and ")}` : ` ${STORE_VERSION}`}`,
        },
      };
    }
  } catch (e) {
    db.close();
    return {
      success: false,
      error: { code: "store_unreadable", message: `${path}: ${(e as Error).message}` },
    };
  }
  return { success: true, data: makeStore(runDir, db, Boolean(opts.readonly)) };
}

/**
 * Open (creating if needed) the results store of a run directory; throws on a store this version
 * cannot read. Use `tryOpenStore` where the directory comes from a user.
 *
 * @example const store = openStore("runs/x"); store.record(rec); store.close();
 */
export function openStore(runDir: string, opts: { readonly?: boolean } = {}): ResultsStore {
  const res = tryOpenStore(runDir, opts);
  if (!res.success) throw new Error(res.error.message);
  return res.data;
}

function makeStore(runDir: string, db: Database.Database, readonly: boolean): ResultsStore {
  const hasStmt = db.prepare(`SELECT 1 FROM trials WHERE ${KEY_WHERE}`).pluck();
  const getStmt = db.prepare(`SELECT * FROM trials WHERE ${KEY_WHERE}`);
  const allStmt = db.prepare(`SELECT * FROM trials ${ORDER}`);
  const verdictsStmt = db.prepare(
    `SELECT bank_hash, agent, task_id, epoch, outcome, passed, g1_passed, g2_passed, failure_reason, partial_score, transcript FROM trials ${ORDER}`,
  );
  const countStmt = db.prepare("SELECT count(*) FROM trials").pluck();
  const upsert = readonly
    ? null
    : db.prepare(
        `INSERT INTO trials (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})
         ON CONFLICT (bank_hash, agent, task_id, epoch) DO UPDATE SET
         ${COLUMNS.slice(4)
           .map((c) => `${c} = excluded.${c}`)
           .join(", ")}`,
      );
  const keyParams = (k: TrialKey) => ({
    bank_hash: k.bank_hash,
    agent: k.agent,
    task_id: k.task_id,
    epoch: k.epoch,
  });
  const write = (recs: readonly TrialRecord[]) => {
    if (!upsert) throw new Error(`results store of ${runDir} was opened read-only`);
    // Validate every row before the transaction starts, so a bad record aborts nothing half-way.
    const rows = recs.map((r) => toRow(TrialRecordSchema.parse(r)));
    for (const row of rows) upsert.run(row);
  };
  const writeTx = db.transaction(write);
  return {
    runDir,
    has: (key) => hasStmt.get(keyParams(key)) !== undefined,
    get: (key) => {
      const row = getStmt.get(keyParams(key)) as Row | undefined;
      return row ? fromRow(row) : null;
    },
    record: (rec) => writeTx([rec]),
    recordMany: (recs) => writeTx(recs),
    *all() {
      for (const row of allStmt.iterate() as IterableIterator<Row>) yield fromRow(row);
    },
    verdicts: () =>
      (verdictsStmt.all() as Row[]).map((row) => ({
        bank_hash: row.bank_hash as string,
        agent: row.agent as string,
        task_id: row.task_id as string,
        epoch: row.epoch as number,
        ...verdictOfRow(row),
        transcript: row.transcript as string | null,
      })),
    query: (filter) => {
      // Only known columns become SQL, whatever object the caller passed.
      const entries = QUERY_KEYS.filter((k) => filter[k] !== undefined).map((k) => [k, filter[k]] as const);
      const where = entries.length ? `WHERE ${entries.map(([k]) => `${k} = @${k}`).join(" AND ")}` : "";
      return (
        db.prepare(`SELECT * FROM trials ${where} ${ORDER}`).all(Object.fromEntries(entries)) as Row[]
      ).map(fromRow);
    },
    count: () => countStmt.get() as number,
    gradings: storeGradings(db, readonly),
    close: () => db.close(),
  };
}
