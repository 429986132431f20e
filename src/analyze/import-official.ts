import { copyFile, link, mkdir, opendir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { openStore, RUN_LAYOUT, readRunManifest, transcriptRelPath, writeRunManifest } from "../run/store.js";
import { TranscriptSchema } from "../run/transcript-schema.js";
import { type TrialRecord, TrialRecordSchema } from "../run/trial-record.js";
import { parseTaskId } from "./task-id.js";
import { transcriptToRecord } from "./transcript-to-record.js";

/** Why a published file was skipped; the import goes on. */
export type MalformedCode = "unreadable" | "invalid_json" | "schema" | "task_id" | "name_mismatch" | "record";

export interface MalformedFile {
  /** Path relative to the imported directory, e.g. `gpt-5-mini/v56-w03-sub07-t2.json`. */
  path: string;
  code: MalformedCode;
  message: string;
}

export interface ImportOptions {
  /**
   * `copy` (default) puts each transcript in the run directory; `link` hard-links it there (no
   * bytes copied; falls back to copying across file systems); `reference` stores its source path.
   */
  transcripts?: "copy" | "link" | "reference";
  /** Files read ahead of the parser (I/O overlaps parsing; memory stays ~ this × the largest file). */
  concurrency?: number;
  /** Rows per store transaction. */
  batchSize?: number;
  /** Called every `progressEvery` files. */
  onProgress?: (p: { files: number; bytes: number }) => void;
  progressEvery?: number;
}

export interface ImportResult {
  /** Transcript files seen (`*.json` under a model directory). */
  files: number;
  bytes: number;
  imported: number;
  scored: number;
  unscored: number;
  malformed: MalformedFile[];
  agents: string[];
  bank_hashes: string[];
}

export type ImportError = { code: "source_missing" | "source_not_dir"; message: string };

const FILE_NAME = /^(.+)-t(\d+)\.json$/;

/** Walk `<dir>/<model-slug>/*.json` one entry at a time (56,037 files never sit in one array). */
async function* transcriptFiles(dir: string): AsyncGenerator<{ agent: string; name: string }> {
  const models: string[] = [];
  for await (const entry of await opendir(dir)) {
    // `_export_manifest.json`, `LICENSE` and other top-level files are not trials.
    if (entry.isDirectory() && !entry.name.startsWith(".") && !entry.name.startsWith("_"))
      models.push(entry.name);
  }
  models.sort();
  for (const agent of models) {
    for await (const entry of await opendir(join(dir, agent))) {
      if (entry.isFile() && entry.name.endsWith(".json")) yield { agent, name: entry.name };
    }
  }
}

/** Hard-link `src` to `dest`, else copy it; never copy a file onto itself (a re-import of a link). */
async function linkOrCopy(src: string, dest: string): Promise<void> {
  try {
    await link(src, dest);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      const [a, b] = await Promise.all([stat(src), stat(dest)]);
      if (a.dev === b.dev && a.ino === b.ino) return;
    } else if (code !== "EXDEV" && code !== "EPERM" && code !== "ENOTSUP" && code !== "EMLINK") {
      throw e;
    }
  }
  await copyFile(src, dest);
}

type Parsed =
  | { ok: true; record: TrialRecord; source: string; rel: string }
  | { ok: false; bad: MalformedFile };

function parseOne(agent: string, name: string, text: string, source: string, reference: boolean): Parsed {
  const path = `${agent}/${name}`;
  const bad = (code: MalformedCode, message: string): Parsed => ({ ok: false, bad: { path, code, message } });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return bad("invalid_json", (e as Error).message);
  }
  const parsed = TranscriptSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return bad("schema", `${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  const t = parsed.data;
  const task = parseTaskId(t.task_id);
  if (!task)
    return bad(
      "task_id",
      `task id ${JSON.stringify(t.task_id)} is neither <bank>-wNN-subNN nor -chain-1toNN`,
    );
  const fromName = FILE_NAME.exec(name);
  if (!fromName || fromName[1] !== t.task_id || Number(fromName[2]) !== t.trial) {
    return bad("name_mismatch", `file name does not match task_id ${t.task_id} trial ${t.trial}`);
  }
  const rel = transcriptRelPath(agent, t.task_id, t.trial);
  const record = transcriptToRecord(t, task, agent, reference ? source : rel);
  const checked = TrialRecordSchema.safeParse(record);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return bad("record", `${issue?.path.join(".")}: ${issue?.message}`);
  }
  return { ok: true, record: checked.data, source, rel };
}

/**
 * Import published APIFlow-Bench 1.0 transcripts (`<dir>/<model-slug>/<task_id>-t<N>.json`) into the
 * results store of `outDir`, one agent per model slug. Streaming: files are read a few at a time
 * and rows are written in batches, so memory stays bounded on the full 2.6 GB set. Malformed files
 * are counted and named, never fatal; importing twice is idempotent.
 *
 * @example
 * const res = await importOfficial("../shared/data/official-transcripts-sample", "runs/official");
 * if (res.success) console.log(res.data.imported, res.data.unscored);
 */
export async function importOfficial(
  dir: string,
  outDir: string,
  opts: ImportOptions = {},
): Promise<{ success: true; data: ImportResult } | { success: false; error: ImportError }> {
  const source = resolve(dir);
  try {
    const dirents = await opendir(source);
    await dirents.close();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === "ENOTDIR" ? "source_not_dir" : "source_missing";
    return { success: false, error: { code, message: `cannot read ${dir}: ${(e as Error).message}` } };
  }
  const reference = opts.transcripts === "reference";
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const batchSize = Math.max(1, opts.batchSize ?? 500);
  const progressEvery = opts.progressEvery ?? 1000;
  const store = openStore(outDir);
  const result: ImportResult = {
    files: 0,
    bytes: 0,
    imported: 0,
    scored: 0,
    unscored: 0,
    malformed: [],
    agents: [],
    bank_hashes: [],
  };
  const agents = new Set<string>();
  const banks = new Set<string>();
  const madeDirs = new Set<string>();
  let batch: TrialRecord[] = [];
  let copies: Promise<void>[] = [];
  let copyError: Error | null = null;
  const flush = async () => {
    // Transcripts land before their rows, so a row never points at a missing file.
    await Promise.all(copies);
    copies = [];
    // A failed copy is the output's fault (disk full, permissions), not the file's: stop.
    if (copyError) throw copyError;
    if (batch.length) store.recordMany(batch);
    batch = [];
  };

  // A bounded window of reads in flight: the parser works on one file while the next ones load.
  const inFlight: Array<Promise<{ agent: string; name: string; text: Buffer | Error }>> = [];
  const read = (agent: string, name: string) =>
    readFile(join(source, agent, name)).then(
      (text) => ({ agent, name, text }),
      (e: Error) => ({ agent, name, text: e }),
    );
  const consume = async (item: { agent: string; name: string; text: Buffer | Error }) => {
    result.files++;
    const path = join(source, item.agent, item.name);
    if (item.text instanceof Error) {
      result.malformed.push({
        path: `${item.agent}/${item.name}`,
        code: "unreadable",
        message: item.text.message,
      });
      return;
    }
    result.bytes += item.text.length;
    const parsed = parseOne(item.agent, item.name, item.text.toString("utf8"), path, reference);
    if (!parsed.ok) {
      result.malformed.push(parsed.bad);
      return;
    }
    const rec = parsed.record;
    agents.add(rec.agent);
    banks.add(rec.bank_hash);
    result.imported++;
    if (rec.passed === null) result.unscored++;
    else result.scored++;
    if (!reference) {
      const destDir = join(outDir, RUN_LAYOUT.transcripts, rec.agent);
      if (!madeDirs.has(destDir)) {
        await mkdir(destDir, { recursive: true });
        madeDirs.add(destDir);
      }
      copies.push(
        (opts.transcripts === "link" ? linkOrCopy : copyFile)(path, join(outDir, parsed.rel)).catch(
          (e: Error) => {
            copyError ??= e;
          },
        ),
      );
    }
    batch.push(rec);
    if (batch.length >= batchSize) await flush();
    if (opts.onProgress && result.files % progressEvery === 0) {
      opts.onProgress({ files: result.files, bytes: result.bytes });
    }
  };

  try {
    for await (const { agent, name } of transcriptFiles(source)) {
      inFlight.push(read(agent, name));
      if (inFlight.length >= concurrency) await consume(await inFlight.shift()!);
    }
    while (inFlight.length) await consume(await inFlight.shift()!);
    await flush();
  } finally {
    store.close();
  }

  result.agents = [...agents].sort();
  result.bank_hashes = [...banks].sort();
  const previous = readRunManifest(outDir);
  writeRunManifest(outDir, {
    schema_version: 1,
    source: "import-official",
    created: new Date().toISOString(),
    bank_hash: result.bank_hashes.length === 1 ? result.bank_hashes[0]! : null,
    agents: [...new Set([...(previous?.agents ?? []), ...result.agents])].sort(),
    imported_from: source,
    transcripts: opts.transcripts ?? "copy",
    import: {
      files: result.files,
      bytes: result.bytes,
      imported: result.imported,
      unscored: result.unscored,
      malformed: result.malformed.length,
      malformed_files: result.malformed.slice(0, 1000),
    },
  });
  return { success: true, data: result };
}
