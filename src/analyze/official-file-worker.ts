/**
 * Worker-thread entry of the import: reads and parses the batches of files it is sent, in order,
 * and answers each with its outcomes (see official-file-pool.ts).
 */
import { parentPort } from "node:worker_threads";
import { type OfficialFileRef, readOfficialFile } from "./official-file.js";

/** A batch of files to read; the answer carries the same `seq`. */
export interface OfficialFileBatch {
  seq: number;
  source: string;
  reference: boolean;
  files: OfficialFileRef[];
}

parentPort?.on("message", (batch: OfficialFileBatch) => {
  const outcomes = batch.files.map((f) => readOfficialFile(batch.source, f, batch.reference));
  parentPort?.postMessage({ seq: batch.seq, outcomes });
});
