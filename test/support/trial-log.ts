import type { JsonValue } from "../../src/bank/json.js";
import { EventLog, type TrialEvent } from "../../src/world/event-log.js";

/**
 * A trial's event log built by hand for grading tests: REST exchanges (request headers if given)
 * and workspace writes, in the order they are chained.
 *
 * @example const events = trialLog().call("POST", "/jobs", 201, { job_id: "J-1" }).store("job", "J-1").events();
 */
export function trialLog() {
  const log = new EventLog();
  const api = {
    /**
     * One exchange: `body` and `headers` are what was sent, `response` and `responseHeaders` what
     * the world answered.
     */
    call(
      method: string,
      url: string,
      status: number,
      response: JsonValue = {},
      body: JsonValue = null,
      headers: Record<string, string> = {},
      responseHeaders: Record<string, string> = {},
    ) {
      log.append({
        type: "exchange",
        protocol: "rest",
        method,
        url,
        request_headers: headers,
        request_body: body,
        status,
        response_headers: responseHeaders,
        response_body: response,
      });
      return api;
    },
    /** A GET answered 200 with `response`. */
    read(url: string, response: JsonValue) {
      return api.call("GET", url, 200, response);
    },
    /** A workspace variable written. */
    store(name: string, value: JsonValue, scope: "vault" | "local" | "global" = "local") {
      log.append({ type: "variable_write", scope, name, value });
      return api;
    },
    events: (): readonly TrialEvent[] => log.events,
  };
  return api;
}
