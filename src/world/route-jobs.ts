import type { JsonObject } from "../bank/json.js";
import type { Route } from "../bank/world-schema.js";
import { fail, ok, type Reply } from "./reply.js";
import type { JobState, TrialWorld } from "./trial-world.js";
import { wireLink } from "./versioning.js";

const DEFAULT_PENDING_SECONDS = 2;

/**
 * A link to a path template with its `{name}` parameters filled (URL-encoded), in the form the
 * client follows as written (`wireLink`: a header- or query-versioned world takes no version in
 * the path).
 */
function fillPath(trial: TrialWorld, template: string, values: Record<string, string>): string {
  return wireLink(
    trial.world,
    template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "")),
  );
}

/**
 * Open an async job for a create on a route with `async_job`: the record waits in the job, and
 * the reply is 202 with the poll URL in `Location`.
 */
export function openJob(trial: TrialWorld, route: Route, record: JsonObject): Reply {
  const job: JobState = {
    id: trial.mint("job", "job_{code}"),
    routeId: route.id,
    resource: route.resource,
    record,
    createdAt: trial.clock,
    state: "pending",
  };
  trial.jobs.set(job.id, job);
  const pollUrl = fillPath(trial, (route.async_job as NonNullable<Route["async_job"]>).poll_path, {
    job_id: job.id,
  });
  return ok(202, { job_id: job.id, status: "pending", poll_url: pollUrl }, { location: pollUrl });
}

/** Everything a job's answers name: its creator's spec, the poll, result and confirm URLs, the seconds left. */
interface JobView {
  job: JobState;
  spec: NonNullable<Route["async_job"]>;
  pollUrl: string;
  resultUrl: string | undefined;
  left: number;
  done: () => Reply;
}

/**
 * Poll (`job_status`) or confirm (`job_confirm`) a job. A job is pending for its creator's
 * `pending_seconds` on the logical clock, then done, or awaiting confirmation when the creator asks
 * for one; its record is written when it becomes done.
 */
export function serveJob(
  trial: TrialWorld,
  route: Route,
  jobId: string,
  show: (r: JsonObject) => JsonObject,
): Reply {
  const job = trial.jobs.get(jobId);
  if (!job || job.resource !== route.resource) return fail(404, "not_found", `no job '${jobId}'`);
  const view = jobView(trial, job, show);
  if (job.state === "pending" && view.left <= 0) {
    if (view.spec.confirm) job.state = "awaiting_confirmation";
    else {
      job.state = "done";
      trial.addRecord(job.resource, job.record);
    }
  }
  if (route.action === "job_confirm") return confirmJob(trial, view);
  return pollJob(trial, view, show);
}

function jobView(trial: TrialWorld, job: JobState, show: (r: JsonObject) => JsonObject): JobView {
  const creator = trial.world.routes.find((r) => r.id === job.routeId);
  const spec = creator?.async_job;
  if (!spec) throw new Error(`job ${job.id} was opened by route ${job.routeId}, which has no async_job`);
  const pollUrl = fillPath(trial, spec.poll_path, { job_id: job.id });
  const idField = trial.world.resources[job.resource]?.id_field ?? "id";
  const resultUrl = spec.result_path
    ? fillPath(trial, spec.result_path, { id: String(job.record[idField]) })
    : undefined;
  const done = (): Reply =>
    ok(200, {
      job_id: job.id,
      status: "done",
      result: show(job.record),
      ...(resultUrl ? { result_url: resultUrl } : {}),
    });
  const left = job.createdAt + (spec.pending_seconds ?? DEFAULT_PENDING_SECONDS) + 1 - trial.clock;
  return { job, spec, pollUrl, resultUrl, left, done };
}

function confirmJob(trial: TrialWorld, { job, pollUrl, resultUrl, left, done }: JobView): Reply {
  if (job.state === "pending") {
    return fail(
      409,
      "job_not_ready",
      `job ${job.id} is still pending; poll ${pollUrl} until it is awaiting_confirmation`,
      { retry_after: left },
      { "retry-after": String(left) },
    );
  }
  if (job.state === "done") {
    return fail(
      409,
      "job_already_done",
      `job ${job.id} is already done; read its result at ${pollUrl}`,
      resultUrl ? { result_url: resultUrl } : {},
    );
  }
  job.state = "done";
  trial.addRecord(job.resource, job.record);
  return done();
}

function pollJob(
  trial: TrialWorld,
  { job, spec, left, done }: JobView,
  show: (r: JsonObject) => JsonObject,
): Reply {
  if (job.state === "pending") {
    return ok(200, { job_id: job.id, status: "pending", retry_after: left }, { "retry-after": String(left) });
  }
  if (job.state === "awaiting_confirmation") {
    const confirmRoute = trial.world.routes.find(
      (r) => r.action === "job_confirm" && r.resource === job.resource,
    );
    const confirmUrl = fillPath(trial, confirmRoute?.path ?? `${spec.poll_path}/confirm`, { job_id: job.id });
    return ok(200, {
      job_id: job.id,
      status: "awaiting_confirmation",
      confirm_url: confirmUrl,
      preview: show(job.record),
    });
  }
  return done();
}
