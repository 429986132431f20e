import { constants } from "node:fs";
import { copyFile, link, mkdir, opendir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { openStore, RUN_LAYOUT, readRunManifest, writeRunManifest } from "../run/store.js";
import type { TrialRecord } from "../run/trial-record.js";
import type { MalformedFile, OfficialFileOutcome, OfficialFileRef } from "./official-file.js";
import { defaultImportWorkers, openOfficialFilePool } from "./official-file-pool.js";

export type { MalformedCode, MalformedFile } from "./official-file.js";

export interface ImportOptions {
  /**
   * `link` (default) hard-links each transcript into the run directory (no bytes copied; copies
   * where a link cannot be made, e.g. across file systems); `copy` copies it there; `reference`
   * stores its source path. Hard links share the published file's inode: nothing in apiflow
   * writes a transcript after import, so the run directory stays self-contained at no I/O cost.
   */
  transcripts?: "copy" | "link" | "reference";
  /**
   * Threads that read and parse files (JSON.parse is most of the work); default one per core but
   * one, at least 1, at most 4. 0 parses on the calling thread.
   */
  workers?: number;
  /** Files per batch sent to a parse thread. */
  filesPerBatch?: number;
  /**
   * Batches in flight per parse thread (reading overlaps parsing; memory stays about
   * workers × this × filesPerBatch small rows, plus one file per thread being parsed).
   */
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

/**
 * Copy `src` to `dest`, but never onto itself: after an import in `link` mode the destination is
 * the source's own inode, and copying over it would truncate the published file.
 */
async function copyNotOntoItself(src: string, dest: string): Promise<void> {
  try {
    await copyFile(src, dest, constants.COPYFILE_EXCL);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const [a, b] = await Promise.all([stat(src), stat(dest)]);
  if (a.dev === b.dev && a.ino === b.ino) return;
  await copyFile(src, dest);
}

/** Why the source folder cannot be read, or null when it can. */
async function sourceError(dir: string, source: string): Promise<ImportError | null> {
  try {
    const dirents = await opendir(source);
    await dirents.close();
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === "ENOTDIR" ? "source_not_dir" : "source_missing";
    return { code, message: `cannot read ${dir}: ${(e as Error).message}` };
  }
}

/**
 * Import published APIFlow-Bench 1.0 transcripts (`<dir>/<model-slug>/<task_id>-t<N>.json`) into the
 * results store of `outDir`, one agent per model slug. Streaming: files are read and parsed a few
 * batches at a time on worker threads and rows are written in batches, so memory
 * stays bounded on the full 2.6 GB set. Malformed files
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
  const unreadable = await sourceError(dir, source);
  if (unreadable) return { success: false, error: unreadable };
  const mode = opts.transcripts ?? "link";
  const reference = mode === "reference";
  const concurrency = Math.max(1, opts.concurrency ?? 2);
  const filesPerBatch = Math.max(1, opts.filesPerBatch ?? 16);
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

  const consume = async (files: OfficialFileRef[], outcomes: OfficialFileOutcome[]) => {
    for (const [i, outcome] of outcomes.entries()) {
      result.files++;
      result.bytes += outcome.bytes;
      if (!outcome.ok) {
        result.malformed.push(outcome.bad);
        continue;
      }
      const rec = outcome.record;
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
        const file = files[i]!;
        copies.push(
          (mode === "link" ? linkOrCopy : copyNotOntoItself)(
            join(source, file.agent, file.name),
            join(outDir, outcome.rel),
          ).catch((e: Error) => {
            copyError ??= e;
          }),
        );
      }
      batch.push(rec);
      if (batch.length >= batchSize) await flush();
      if (opts.onProgress && result.files % progressEvery === 0) {
        opts.onProgress({ files: result.files, bytes: result.bytes });
      }
    }
  };

  // Batches of files go to the parse threads; a bounded window of them is in flight, consumed in
  // order, so the store is written while the next files are parsed and memory stays bounded.
  const pool = openOfficialFilePool(source, reference, opts.workers ?? defaultImportWorkers());
  const window = Math.max(1, pool.workers) * concurrency;
  const inFlight: Array<{ files: OfficialFileRef[]; outcomes: Promise<OfficialFileOutcome[]> }> = [];
  const send = (files: OfficialFileRef[]) => {
    const outcomes = pool.read(files);
    // Consumed in order later; a rejection before then must not count as unhandled.
    outcomes.catch(() => {});
    inFlight.push({ files, outcomes });
  };
  const next = async () => {
    const head = inFlight.shift()!;
    await consume(head.files, await head.outcomes);
  };
  try {
    let files: OfficialFileRef[] = [];
    for await (const file of transcriptFiles(source)) {
      files.push(file);
      if (files.length < filesPerBatch) continue;
      send(files);
      files = [];
      if (inFlight.length >= window) await next();
    }
    if (files.length) send(files);
    while (inFlight.length) await next();
    await flush();
  } finally {
    await pool.close();
    store.close();
  }

  result.agents = [...agents].sort();
  result.bank_hashes = [...banks].sort();
  writeImportManifest(outDir, source, mode, result);
  return { success: true, data: result };
}

/** The run manifest of an import: its source and counts, the agents of earlier imports kept. */
function writeImportManifest(
  outDir: string,
  source: string,
  mode: NonNullable<ImportOptions["transcripts"]>,
  result: ImportResult,
): void {
  const previous = readRunManifest(outDir);
  writeRunManifest(outDir, {
    schema_version: 1,
    source: "import-official",
    created: new Date().toISOString(),
    bank_hash: result.bank_hashes.length === 1 ? result.bank_hashes[0]! : null,
    agents: [...new Set([...(previous?.agents ?? []), ...result.agents])].sort(),
    imported_from: source,
    transcripts: mode,
    import: {
      files: result.files,
      bytes: result.bytes,
      imported: result.imported,
      unscored: result.unscored,
      malformed: result.malformed.length,
      malformed_files: result.malformed.slice(0, 1000),
    },
  });
}
