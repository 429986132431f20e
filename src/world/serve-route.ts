import { canonicalJson } from "../bank/canonical-json.js";
import type { JsonObject, JsonValue } from "../bank/json.js";
import type { QueryParam, Route } from "../bank/world-schema.js";
import { authorize } from "./auth.js";
import { paginate } from "./paginate.js";
import { fail, ok, type Problem, type Reply } from "./reply.js";
import type { WorldProtocol } from "./token-wording.js";
import type { JobState, TrialWorld } from "./trial-world.js";
import { isAbsent, summarizeProblems, validateBody } from "./validate-body.js";

/** Why a request body could not be read; answered only by routes that read a body. */
export interface BodyError {
  status: 400 | 415;
  error: string;
  message: string;
}

/** One request as a route sees it, independent of the HTTP framework. */
export interface RouteRequest {
  url: URL;
  params: Record<string, string>;
  header(name: string): string | undefined;
  body: JsonValue | null;
  bodyError: BodyError | null;
  /** The protocol the request came in by, for the wording of hints; absent for REST. */
  protocol?: WorldProtocol;
}

const DEFAULT_PENDING_SECONDS = 2;
const DEFAULT_RETRY_AFTER = 5;

/**
 * Serve one request to one declared route of a trial's world: auth, then the route's declared
 * behaviours (throttle, transient 5xx, query parameters, idempotency), then its action. Never
 * throws for anything an agent sends; a thrown error is a bug in the world or the engine.
 *
 * @example serveRoute(trial, route, { url, params: { vessel_id: "V-204" }, header: () => undefined, body: null, bodyError: null })
 */
export function serveRoute(trial: TrialWorld, route: Route, req: RouteRequest): Reply {
  const reply = serveInner(trial, route, req);
  if (Object.keys(route.headers).length > 0) reply.headers = { ...route.headers, ...reply.headers };
  return reply;
}

function serveInner(trial: TrialWorld, route: Route, req: RouteRequest): Reply {
  const denied = authorize(trial, route, req.header("authorization"), req.protocol);
  if (denied) return denied;
  const call = trial.nextSeq(`call:${route.id}`);

  if (route.throttle) {
    const until = trial.throttles.get(route.id);
    const onCall = route.throttle.on_call ?? 1;
    if (until === undefined && call === onCall) {
      const end = trial.clock + (route.throttle.retry_after ?? DEFAULT_RETRY_AFTER);
      trial.throttles.set(route.id, end);
      return throttled(end - trial.clock);
    }
    if (until !== undefined && trial.clock < until) return throttled(until - trial.clock);
  }

  const key = req.header("idempotency-key");
  if (route.transient) {
    const heal = route.transient.heal ?? "idempotency_key";
    const failing = heal === "idempotency_key" ? !key : call <= (route.transient.fail_calls ?? 1);
    if (failing) {
      return fail(
        route.transient.status ?? 503,
        "transient_failure",
        "the upstream store did not answer; the write may or may not have been applied",
        {
          retryable: true,
          hint:
            heal === "idempotency_key"
              ? "retry with an Idempotency-Key header (any unique string) so the retry cannot be applied twice"
              : "retry the same request",
        },
      );
    }
  }

  const query = checkQuery(route, req.url);
  if ("status" in query) return query;

  const idempotent =
    (route.idempotency || route.transient) && key && (route.action === "create" || route.action === "update");
  if (idempotent) {
    const slot = `${route.id}\n${key}`;
    const fingerprint = `${req.url.pathname}\n${canonicalJson(req.body ?? null)}`;
    const stored = trial.replies.get(slot);
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        return fail(
          422,
          "idempotency_key_reused",
          "this Idempotency-Key was already used with a different request",
          {
            hint: "use a new Idempotency-Key for a different request",
          },
        );
      }
      // The stored reply keeps its semantic error (stored below with the rest of the reply), so a
      // replayed error is worded in the world's style like the first one.
      const { problem } = stored as { problem?: Problem };
      return {
        status: stored.status,
        body: stored.body,
        headers: { ...stored.headers, "idempotent-replayed": "true" },
        ...(problem ? { problem } : {}),
      };
    }
    const reply = act(trial, route, req, query);
    if (reply.status < 500) trial.replies.set(slot, { fingerprint, ...reply });
    return reply;
  }
  return act(trial, route, req, query);
}

function throttled(seconds: number): Reply {
  return fail(
    429,
    "rate_limited",
    `too many requests to this route; retry after ${seconds} s`,
    {
      retry_after: seconds,
      hint: `wait ${seconds} s before retrying: this world's clock is logical, so send the retry with header x-apiflow-wait: ${seconds} (or make ${seconds} other calls first)`,
    },
    { "retry-after": String(seconds) },
  );
}

interface QueryState {
  /** Parameters present and not `false`/`0`. */
  on: Set<string>;
  filters: Array<[string, string]>;
}

function checkQuery(route: Route, url: URL): QueryState | Reply {
  const state: QueryState = { on: new Set(), filters: [] };
  for (const p of route.query_params ?? []) {
    const value = url.searchParams.get(p.name);
    if (value === null) {
      if (p.required) {
        return fail(
          400,
          "missing_query_parameter",
          `query parameter ${p.name} is required${allowedText(p)}`,
          {
            parameter: p.name,
            ...(p.allowed ? { allowed: p.allowed } : {}),
          },
        );
      }
      continue;
    }
    if (p.allowed && !p.allowed.includes(value)) {
      return fail(
        400,
        "invalid_query_parameter",
        `query parameter ${p.name} must be one of ${p.allowed.join(", ")}, got ${JSON.stringify(value)}`,
        {
          parameter: p.name,
          allowed: p.allowed,
        },
      );
    }
    if (value !== "false" && value !== "0") state.on.add(p.name);
    if (p.filter_field) state.filters.push([p.filter_field, value]);
  }
  return state;
}

function allowedText(p: QueryParam): string {
  return p.allowed ? ` (one of ${p.allowed.join(", ")})` : "";
}

function matches(record: JsonObject, where: Record<string, JsonValue>): boolean {
  for (const [field, want] of Object.entries(where)) {
    const have = record[field];
    if (have !== want && JSON.stringify(have) !== JSON.stringify(want)) return false;
  }
  return true;
}

/** Records this route can see: its view's `where`, hidden ones not unhidden, query filters. */
function visible(route: Route, records: JsonObject[], query: QueryState): JsonObject[] {
  const hidden = (route.query_params ?? []).filter((p) => p.unhides && !query.on.has(p.name));
  const where = route.view.where;
  if (!where && hidden.length === 0 && query.filters.length === 0) return records;
  return records.filter(
    (r) =>
      (!where || matches(r, where)) &&
      hidden.every((p) => !matches(r, p.unhides as Record<string, JsonValue>)) &&
      query.filters.every(([field, value]) => String(r[field]) === value),
  );
}

function act(trial: TrialWorld, route: Route, req: RouteRequest, query: QueryState): Reply {
  const resource = trial.world.resources[route.resource];
  if (!resource) throw new Error(`route ${route.id} names unknown resource ${route.resource}`);
  const idField = resource.id_field;
  const overrides = trial.resolved(`overrides:${route.id}`, route.view.overrides) as JsonObject;
  const revealed = (route.query_params ?? [])
    .filter((p) => p.reveals_fields && query.on.has(p.name))
    .flatMap((p) => p.reveals_fields ?? []);
  const omit = route.view.omit_fields.filter((f) => !revealed.includes(f));
  const show = (r: JsonObject): JsonObject => {
    const out: JsonObject = { ...r, ...overrides };
    for (const f of omit) delete out[f];
    return out;
  };
  const records = trial.resource(route.resource);
  const find = (): { record: JsonObject } | { reply: Reply } => {
    const id = req.params[idField] ?? "";
    const hit = records.find((r) => String(r[idField]) === id);
    if (hit && visible(route, [hit], query).length === 1) return { record: hit };
    const notice = (route.query_params ?? []).find(
      (p) => p.unhides && p.notice && !query.on.has(p.name),
    )?.notice;
    return {
      reply: fail(
        404,
        "not_found",
        `no ${route.resource} record with ${idField} '${id}'`,
        notice ? { hint: notice } : {},
      ),
    };
  };
  const concurrency = route.concurrency;
  const versionField = concurrency?.version_field ?? "version";
  const versionOf = (r: JsonObject) =>
    typeof r[versionField] === "number" ? (r[versionField] as number) : 1;

  switch (route.action) {
    case "list": {
      const items = visible(route, records, query).map(show);
      const notices = (route.query_params ?? [])
        .filter((p) => p.notice && !query.on.has(p.name))
        .map((p) => p.notice as string);
      const reply = route.pagination
        ? paginate(route.pagination, route.resource, items, route.id, req.url)
        : ok(200, { [route.resource]: items, total: items.length });
      if (
        notices.length > 0 &&
        reply.status === 200 &&
        reply.body &&
        typeof reply.body === "object" &&
        !Array.isArray(reply.body)
      ) {
        reply.body = { ...reply.body, notice: notices.join(" ") };
      }
      return reply;
    }
    case "get": {
      const found = find();
      if ("reply" in found) return found.reply;
      return ok(200, show(found.record), concurrency ? { etag: `"${versionOf(found.record)}"` } : {});
    }
    case "delete": {
      const found = find();
      if ("reply" in found) return found.reply;
      records.splice(records.indexOf(found.record), 1);
      return ok(204, null);
    }
    case "create":
    case "update": {
      if (req.bodyError) return fail(req.bodyError.status, req.bodyError.error, req.bodyError.message);
      const body = req.body;
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        return fail(400, "invalid_body", "the request body must be a JSON object");
      }
      const found = route.action === "update" ? find() : null;
      if (found && "reply" in found) return found.reply;
      const target = found ? found.record : null;
      const stagedKey = `${route.id}\n${target ? String(target[idField]) : ""}`;
      const staged = trial.staged.get(stagedKey);
      if (staged) {
        if (body.confirm !== true) {
          return fail(
            409,
            "staged_write_pending",
            `a write to ${route.resource} ${staged.recordId} is staged but not committed`,
            {
              staged_id: staged.recordId,
              hint: 'resend the same request with "confirm": true in the body to commit the staged write',
            },
          );
        }
        trial.staged.delete(stagedKey);
        return commit(trial, route, staged.record, target, show, versionField, concurrency !== undefined);
      }
      const problems = route.validator
        ? validateBody(route.validator, body, route.action)
        : route.action === "create"
          ? route.required_fields
              .filter((f) => isAbsent(body[f]))
              .map((f) => ({ field: f, code: "missing" as const, message: "missing" }))
          : [];
      if (problems.length > 0) {
        const missing = problems.filter((p) => p.code === "missing").map((p) => p.field);
        const message = route.validator
          ? summarizeProblems(problems)
          : `missing required field(s): ${missing.join(", ")}`;
        return fail(route.validator?.status ?? 422, "validation_failed", message, {
          errors: problems,
          missing,
        });
      }
      if (target && concurrency) {
        const updateCall = trial.nextSeq(`update:${route.id}`);
        if (updateCall === concurrency.concurrent_update_on_call) {
          Object.assign(
            target,
            trial.resolved(`concurrent:${route.id}`, concurrency.concurrent_changes ?? {}) as JsonObject,
          );
          target[versionField] = versionOf(target) + 1;
        }
        const mode = concurrency.mode ?? "etag";
        const sent = mode === "etag" ? req.header("if-match") : body[versionField];
        const how =
          mode === "etag"
            ? "an if-match header with the etag of your last read"
            : `the ${versionField} of your last read in the body`;
        const reread = `re-read GET ${req.url.pathname} and resend with ${mode === "etag" ? "if-match: <its etag>" : `its ${versionField}`}`;
        if (sent === undefined || sent === null || sent === "") {
          return fail(428, "precondition_required", `this update needs ${how}`, { hint: reread });
        }
        const sentVersion = String(sent).replace(/^W\//, "").replace(/"/g, "").trim();
        if (sentVersion !== String(versionOf(target))) {
          return fail(
            409,
            "version_conflict",
            `the ${route.resource} record changed since version ${sentVersion} was read`,
            {
              hint: reread,
            },
          );
        }
      }
      const patch: JsonObject = { ...body };
      if (concurrency) delete patch[versionField];
      let record: JsonObject;
      if (target) {
        record = { ...patch, [idField]: target[idField] ?? req.params[idField] ?? "" };
      } else {
        record = {
          ...patch,
          ...(trial.resolved(`defaults:${route.id}`, route.defaults) as JsonObject),
          [idField]: mintId(trial, route),
        };
      }
      if (route.partial_write && trial.nextSeq(`write:${route.id}`) === (route.partial_write.on_call ?? 1)) {
        const recordId = String(record[idField]);
        trial.staged.set(stagedKey, { recordId, record });
        return fail(
          503,
          "partial_write",
          `the write to ${route.resource} ${recordId} was staged but not committed`,
          {
            staged_id: recordId,
            retryable: true,
            hint: 'resend the same request with "confirm": true in the body to commit the staged write',
          },
        );
      }
      if (!target && route.async_job) return openJob(trial, route, record);
      return commit(trial, route, record, target, show, versionField, concurrency !== undefined);
    }
    case "job_status":
    case "job_confirm":
      return serveJob(trial, route, req, show);
  }
}

function mintId(trial: TrialWorld, route: Route): string {
  const resource = trial.world.resources[route.resource];
  const template = resource?.id_template ?? "{canary}";
  const seq = trial.nextSeq(route.resource);
  return template.includes("{canary}")
    ? trial.mint(`${route.resource}:id`, template.replace("{canary}", "{code}").replace("{seq}", String(seq)))
    : template.replace("{seq}", String(seq).padStart(4, "0"));
}

function commit(
  trial: TrialWorld,
  route: Route,
  record: JsonObject,
  target: JsonObject | null,
  show: (r: JsonObject) => JsonObject,
  versionField: string,
  versioned: boolean,
): Reply {
  if (target) {
    const version = typeof target[versionField] === "number" ? (target[versionField] as number) : 1;
    Object.assign(target, record);
    if (versioned) target[versionField] = version + 1;
    return ok(200, show(target), versioned ? { etag: `"${target[versionField]}"` } : {});
  }
  trial.resource(route.resource).push(record);
  return ok(201, show(record));
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ""));
}

function openJob(trial: TrialWorld, route: Route, record: JsonObject): Reply {
  const job: JobState = {
    id: trial.mint("job", "job_{code}"),
    routeId: route.id,
    resource: route.resource,
    record,
    createdAt: trial.clock,
    state: "pending",
  };
  trial.jobs.set(job.id, job);
  const pollUrl = fillPath((route.async_job as NonNullable<Route["async_job"]>).poll_path, {
    job_id: job.id,
  });
  return ok(202, { job_id: job.id, status: "pending", poll_url: pollUrl }, { location: pollUrl });
}

function serveJob(
  trial: TrialWorld,
  route: Route,
  req: RouteRequest,
  show: (r: JsonObject) => JsonObject,
): Reply {
  const id = req.params.job_id ?? "";
  const job = trial.jobs.get(id);
  if (!job || job.resource !== route.resource) return fail(404, "not_found", `no job '${id}'`);
  const creator = trial.world.routes.find((r) => r.id === job.routeId);
  const spec = creator?.async_job;
  if (!spec) throw new Error(`job ${id} was opened by route ${job.routeId}, which has no async_job`);
  const pollUrl = fillPath(spec.poll_path, { job_id: job.id });
  const idField = trial.world.resources[job.resource]?.id_field ?? "id";
  const resultUrl = spec.result_path
    ? fillPath(spec.result_path, { id: String(job.record[idField]) })
    : undefined;
  const done = (): Reply =>
    ok(200, {
      job_id: job.id,
      status: "done",
      result: show(job.record),
      ...(resultUrl ? { result_url: resultUrl } : {}),
    });
  const left = job.createdAt + (spec.pending_seconds ?? DEFAULT_PENDING_SECONDS) + 1 - trial.clock;
  if (job.state === "pending" && left <= 0) {
    if (spec.confirm) job.state = "awaiting_confirmation";
    else {
      job.state = "done";
      trial.resource(job.resource).push(job.record);
    }
  }
  const confirmRoute = trial.world.routes.find(
    (r) => r.action === "job_confirm" && r.resource === job.resource,
  );
  const confirmUrl = confirmRoute ? fillPath(confirmRoute.path, { job_id: job.id }) : `${pollUrl}/confirm`;
  if (route.action === "job_confirm") {
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
    trial.resource(job.resource).push(job.record);
    return done();
  }
  if (job.state === "pending") {
    return ok(200, { job_id: job.id, status: "pending", retry_after: left }, { "retry-after": String(left) });
  }
  if (job.state === "awaiting_confirmation") {
    return ok(200, {
      job_id: job.id,
      status: "awaiting_confirmation",
      confirm_url: confirmUrl,
      preview: show(job.record),
    });
  }
  return done();
}
