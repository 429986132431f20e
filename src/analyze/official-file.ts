import { readFileSync } from "node:fs";
import { join } from "node:path";
import { transcriptRelPath } from "../run/store.js";
import { type TrialRecord, TrialRecordSchema } from "../run/trial-record.js";
import { parseTaskId } from "./task-id.js";
import { parseTranscriptBytes } from "./transcript-header.js";
import { transcriptToRecord } from "./transcript-to-record.js";

/** Why a published file was skipped; the import goes on. */
export type MalformedCode = "unreadable" | "invalid_json" | "schema" | "task_id" | "name_mismatch" | "record";

export interface MalformedFile {
  /** Path relative to the imported directory, e.g. `gpt-5-mini/v56-w03-sub07-t2.json`. */
  path: string;
  code: MalformedCode;
  message: string;
}

/** One published transcript file: `<source>/<agent>/<name>`. */
export interface OfficialFileRef {
  agent: string;
  name: string;
}

/**
 * What one file gave: a store row (and where its transcript goes in the run directory), or why it
 * was skipped. Plain data, so it crosses from a worker thread by structured clone.
 */
export type OfficialFileOutcome =
  | { ok: true; bytes: number; record: TrialRecord; rel: string }
  | { ok: false; bytes: number; bad: MalformedFile };

const FILE_NAME = /^(.+)-t(\d+)\.json$/;

/**
 * Read one published 1.0 transcript and map it onto a store row. Synchronous on purpose: it runs
 * in a worker thread of the import (see official-file-pool.ts), where blocking costs nothing.
 * `reference` stores the source path as the row's transcript instead of the run-directory path.
 *
 * @example readOfficialFile("/data/1.0", { agent: "gpt-5-mini", name: "v56-w03-sub07-t2.json" }, false)
 */
export function readOfficialFile(
  source: string,
  file: OfficialFileRef,
  reference: boolean,
): OfficialFileOutcome {
  const { agent, name } = file;
  const path = `${agent}/${name}`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(source, agent, name));
  } catch (e) {
    return { ok: false, bytes: 0, bad: { path, code: "unreadable", message: (e as Error).message } };
  }
  const bad = (code: MalformedCode, message: string): OfficialFileOutcome => ({
    ok: false,
    bytes: bytes.length,
    bad: { path, code, message },
  });
  // Only the header is validated: the store keeps nothing of the messages (see transcript-header.ts).
  const parsed = parseTranscriptBytes(bytes);
  if (!parsed.success) return bad(parsed.error.code, parsed.error.message);
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
  const record = transcriptToRecord(t, task, agent, reference ? join(source, agent, name) : rel);
  const checked = TrialRecordSchema.safeParse(record);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return bad("record", `${issue?.path.join(".")}: ${issue?.message}`);
  }
  return { ok: true, bytes: bytes.length, record: checked.data, rel };
}
