import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { JsonValueSchema } from "../bank/json.js";
import { ComparatorSchema } from "../bank/task-schema.js";
import { type Transcript, TranscriptSchema, type VerifierPredicate } from "../trial/transcript-schema.js";
import { extractAnswerCard, finalAssistantText } from "./answer-card.js";
import { type AnswerFieldSpec, type FieldGrade, gradeAnswerField } from "./grade-answer-field.js";

/**
 * Regrade the G2 half of published APIFlow-Bench 1.0 transcripts with our grader: for every
 * scored trial, every recorded G2 predicate (field, expected value, comparator) is graded again
 * from the recorded final assistant message, and compared with what 1.0 recorded. This is how
 * our G2 was made to agree with 1.0, and how a user checks that it still does.
 */

/** One side of a field comparison: the verdict, the value read from the card, the reason. */
export const FieldOutcomeSchema = z.object({
  passed: z.boolean(),
  got: JsonValueSchema.optional(),
  reason: z.string().optional(),
});
export type FieldOutcome = z.infer<typeof FieldOutcomeSchema>;

export const FieldDisagreementSchema = z.object({
  /** The transcript, relative to the regraded directory (`<model>/<task_id>-t<N>.json`). */
  file: z.string(),
  field: z.string(),
  comparator: ComparatorSchema,
  /** What differs: the verdict, or (verdict agreeing) the value read or the reason text. */
  differs: z.enum(["passed", "got", "reason"]),
  recorded: FieldOutcomeSchema,
  ours: FieldOutcomeSchema,
});
export type FieldDisagreement = z.infer<typeof FieldDisagreementSchema>;

export const MalformedTranscriptSchema = z.object({
  file: z.string(),
  code: z.enum(["unreadable", "not-json", "not-a-transcript", "bad-g2-predicate"]),
  message: z.string(),
});
export type MalformedTranscript = z.infer<typeof MalformedTranscriptSchema>;

export const OfficialRegradeSchema = z.object({
  /** Transcript files read and parsed (malformed ones excluded). */
  trials: z.number().int().nonnegative(),
  /** G2 fields compared (those of scored trials). */
  fields: z.number().int().nonnegative(),
  /** Fields whose verdict, value read or reason differs from the recorded one. */
  field_disagreements: z.number().int().nonnegative(),
  /** Scored trials whose G2 verdict (all G2 fields pass) differs from the recorded one. */
  trial_disagreements: z.number().int().nonnegative(),
  /** Trials 1.0 left unscored (`verdict: ""`, no verifier): read, not compared. */
  unscored: z.number().int().nonnegative(),
  malformed: z.array(MalformedTranscriptSchema),
  disagreements: z.array(FieldDisagreementSchema),
  /** Files of the trials whose G2 verdict differs. */
  trials_differing: z.array(z.string()),
});
export type OfficialRegrade = z.infer<typeof OfficialRegradeSchema>;

export type OfficialRegradeResult =
  | { success: true; data: OfficialRegrade }
  | { success: false; error: { code: "dir-not-found" | "not-a-directory"; message: string } };

/**
 * Regrade every transcript under `dir` (1.0 layout: `<model>/<task_id>-t<N>.json`; files
 * starting with `_`, such as `_export_manifest.json`, are skipped). Files are read one at a time,
 * so memory stays flat on the full 56k-trial export. A file that cannot be read or parsed is
 * listed in `malformed` and the run goes on.
 *
 * @example
 * const r = await regradeOfficial("../shared/data/official-transcripts-sample");
 * if (r.success) console.log(r.data.trials, r.data.trial_disagreements);
 */
export async function regradeOfficial(dir: string): Promise<OfficialRegradeResult> {
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => undefined,
  );
  if (isDir === undefined) {
    return { success: false, error: { code: "dir-not-found", message: `no such directory: ${dir}` } };
  }
  if (!isDir)
    return { success: false, error: { code: "not-a-directory", message: `not a directory: ${dir}` } };

  const summary: OfficialRegrade = {
    trials: 0,
    fields: 0,
    field_disagreements: 0,
    trial_disagreements: 0,
    unscored: 0,
    malformed: [],
    disagreements: [],
    trials_differing: [],
  };
  for await (const file of transcriptFiles(dir)) {
    const loaded = await loadTranscript(join(dir, file));
    if (!loaded.success) {
      summary.malformed.push({ file, ...loaded.error });
      continue;
    }
    const trial = regradeTrial(file, loaded.data);
    if (!trial.success) {
      summary.malformed.push({ file, ...trial.error });
      continue;
    }
    summary.trials += 1;
    if (trial.data === "unscored") {
      summary.unscored += 1;
      continue;
    }
    summary.fields += trial.data.fields;
    summary.field_disagreements += trial.data.disagreements.length;
    summary.disagreements.push(...trial.data.disagreements);
    if (trial.data.verdictDiffers) {
      summary.trial_disagreements += 1;
      summary.trials_differing.push(file);
    }
  }
  return { success: true, data: summary };
}

/** Relative paths of `<model>/<file>.json`, sorted so reports are stable. */
async function* transcriptFiles(dir: string): AsyncGenerator<string> {
  const models = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !e.name.startsWith("_") && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort();
  for (const model of models) {
    const files = (await readdir(join(dir, model), { withFileTypes: true }))
      .filter((e) => e.isFile() && e.name.endsWith(".json") && !e.name.startsWith("_"))
      .map((e) => e.name)
      .sort();
    for (const name of files) yield `${model}/${name}`;
  }
}

type Loaded =
  | { success: true; data: Transcript }
  | { success: false; error: { code: MalformedTranscript["code"]; message: string } };

async function loadTranscript(path: string): Promise<Loaded> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    return { success: false, error: { code: "unreadable", message: (e as Error).message } };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { success: false, error: { code: "not-json", message: (e as Error).message } };
  }
  const parsed = TranscriptSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return {
      success: false,
      error: { code: "not-a-transcript", message: `${where}${issue?.message ?? ""}` },
    };
  }
  return { success: true, data: parsed.data };
}

/** The grading spec 1.0 recorded in a G2 predicate's `detail`. */
const RecordedG2DetailSchema = z.looseObject({
  field: z.string().min(1),
  comparator: ComparatorSchema,
  expected: JsonValueSchema,
  tolerance: z.number().nonnegative().optional(),
  got: JsonValueSchema.optional(),
  reason: z.string().optional(),
});

type TrialRegrade =
  | {
      success: true;
      data: "unscored" | { fields: number; disagreements: FieldDisagreement[]; verdictDiffers: boolean };
    }
  | { success: false; error: { code: "bad-g2-predicate"; message: string } };

function regradeTrial(file: string, transcript: Transcript): TrialRegrade {
  if (transcript.verdict === "" || transcript.verifier === null) return { success: true, data: "unscored" };
  const predicates = transcript.verifier.metadata.predicates.filter((p) => p.group === "G2");
  const card = extractAnswerCard(
    finalAssistantText(transcript.messages),
    predicates.map((p) => RecordedG2DetailSchema.safeParse(p.detail).data?.field ?? ""),
  );
  const data = card.success ? card.data : null;
  const disagreements: FieldDisagreement[] = [];
  let recordedPass = true;
  let oursPass = true;
  for (const predicate of predicates) {
    const detail = RecordedG2DetailSchema.safeParse(predicate.detail);
    if (!detail.success) {
      return {
        success: false,
        error: { code: "bad-g2-predicate", message: badPredicate(predicate, detail.error) },
      };
    }
    const { field, comparator, expected, tolerance } = detail.data;
    const spec: AnswerFieldSpec = {
      field,
      comparator,
      expected,
      ...(tolerance === undefined ? {} : { tolerance }),
    };
    const ours = gradeAnswerField(spec, data);
    const recorded: FieldOutcome = outcome({ passed: predicate.passed, ...detail.data });
    recordedPass &&= predicate.passed;
    oursPass &&= ours.passed;
    const differs = difference(recorded, ours);
    if (differs) {
      disagreements.push({ file, field, comparator, differs, recorded, ours: outcome(ours) });
    }
  }
  return {
    success: true,
    data: { fields: predicates.length, disagreements, verdictDiffers: recordedPass !== oursPass },
  };
}

function badPredicate(predicate: VerifierPredicate, error: z.ZodError): string {
  const issue = error.issues[0];
  return `G2 predicate ${predicate.label}: detail.${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`;
}

function outcome(grade: Pick<FieldGrade, "passed" | "got" | "reason">): FieldOutcome {
  return {
    passed: grade.passed,
    ...(grade.got === undefined ? {} : { got: grade.got }),
    ...(grade.reason === undefined ? {} : { reason: grade.reason }),
  };
}

function difference(recorded: FieldOutcome, ours: FieldOutcome): FieldDisagreement["differs"] | undefined {
  if (recorded.passed !== ours.passed) return "passed";
  if (!sameJson(recorded.got, ours.got)) return "got";
  if ((recorded.reason ?? "") !== (ours.reason ?? "")) return "reason";
  return undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}
