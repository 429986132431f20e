import { gunzipSync } from "node:zlib";
import { encodeTrialLog, type StoredTrialLog } from "../../src/run/stored-trial-log.js";

/**
 * A log's text (what `zcat` shows) as version 4, 5 or 6 (today's) writes it.
 *
 * @example decodeTrialLog(encodeTrialLog(versionText(log, 5))).data.log_version // 5
 */
export function versionText(log: StoredTrialLog, version: 4 | 5 | 6): string {
  if (version === 4) return v4Text(log);
  if (version === 5) return v5Text(log);
  return gunzipSync(encodeTrialLog(log)).toString("utf8");
}

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

/**
 * A log as version 5 wrote it: the head (its exchanges without bodies, `final_resources` with each
 * resource's number of records), one line per body, the task part, one line per record.
 *
 * @example decodeTrialLog(encodeTrialLog(v5Text(log))).data.log_version // 5
 */
export function v5Text(log: StoredTrialLog): string {
  const { grader, graded_segments, requirements, final_records, events, ...rest } = log;
  const bodies: string[] = [];
  const headEvents = events.map((e) => {
    if (e.type !== "exchange") {
      const { type, seq, scope, name, value } = e;
      return { type, seq, scope, name, value };
    }
    bodies.push(JSON.stringify(e.response_body));
    const { response_body: _, ...envelope } = e;
    return {
      type: envelope.type,
      seq: envelope.seq,
      protocol: envelope.protocol,
      method: envelope.method,
      url: envelope.url,
      ...(envelope.raw_url !== undefined ? { raw_url: envelope.raw_url } : {}),
      request_headers: envelope.request_headers,
      request_body: envelope.request_body,
      status: envelope.status,
      response_headers: envelope.response_headers,
    };
  });
  const resources = Object.entries(final_records ?? {});
  const head = {
    ...rest,
    log_version: 5,
    events: headEvents,
    final_resources:
      final_records === null ? null : resources.map(([resource, r]) => ({ resource, records: r.length })),
  };
  const task = { graded_segments, ...(requirements ? { requirements } : {}), grader };
  return `${[
    JSON.stringify(head),
    ...bodies,
    JSON.stringify(task),
    ...resources.flatMap(([, records]) => records.map((r) => JSON.stringify(r))),
  ].join("\n")}\n`;
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
