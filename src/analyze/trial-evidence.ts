import { type Explanation, explainVerdict } from "../grade/explain-verdict.js";
import { gradeInputOf, readTrialLog, trialLogPath } from "../run/stored-trial-log.js";

/** URL suffix under which `apiflow view` serves a transcript's explanation (`<transcript>.explain.json`). */
export const EXPLAIN_SUFFIX = ".explain.json";

/**
 * The explanation of a stored trial's verdict from the event log beside its transcript, with the
 * grader stored in it; null when the trial has no readable stored log (a run made before logs
 * were kept), so the viewer shows the transcript alone.
 *
 * @example const ex = explainTranscript("runs/x/transcripts/golden/harbor-sub01-t1.json");
 */
export function explainTranscript(transcriptFile: string): Explanation | null {
  const log = readTrialLog(trialLogPath(transcriptFile));
  return log.success ? explainVerdict(gradeInputOf(log.data)) : null;
}
