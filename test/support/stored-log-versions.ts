import type { StoredTrialLog } from "../../src/run/stored-trial-log.js";

/**
 * A log as version 4 wrote it (the text `zcat` shows): the head with each exchange's body line
 * number, one line per body, the task part, one line per resource holding its records.
 *
 * @example decodeTrialLog(encodeTrialLog(v4Text(log))).data.log_version // 4
 */
export function v4Text(log: StoredTrialLog): string {
  const { grader, graded_segments, requirements, final_records, events, ...rest } = log;
  const { head: headEvents, bodies } = numberedBodies(events);
  const head = {
    ...rest,
    log_version: 4,
    events: headEvents,
    final_resources: final_records === null ? null : Object.keys(final_records),
  };
  const task = { graded_segments, ...(requirements ? { requirements } : {}), grader };
  return `${[JSON.stringify(head), ...bodies, JSON.stringify(task), ...Object.values(final_records ?? {}).map((r) => JSON.stringify(r))].join("\n")}\n`;
}

/** A log as version 3 wrote it: the requirements in the head, the grader, a line naming the resources, one line each. */
export function v3Text(log: StoredTrialLog): string {
  const { grader, final_records, events, ...rest } = log;
  const { head: headEvents, bodies } = numberedBodies(events);
  const records =
    final_records === null
      ? ["null"]
      : [
          JSON.stringify(Object.keys(final_records)),
          ...Object.values(final_records).map((r) => JSON.stringify(r)),
        ];
  const head = { ...rest, log_version: 3, events: headEvents };
  return `${[JSON.stringify(head), ...bodies, JSON.stringify(grader), ...records].join("\n")}\n`;
}

/** Versions 2 to 4: each exchange's `response_body` in the head is the number of its body's line. */
function numberedBodies(events: StoredTrialLog["events"]) {
  const bodies: string[] = [];
  const head = events.map((e) => {
    if (e.type !== "exchange") return e;
    bodies.push(JSON.stringify(e.response_body));
    return { ...e, response_body: bodies.length };
  });
  return { head, bodies };
}
