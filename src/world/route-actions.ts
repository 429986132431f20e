import type { JsonObject, JsonValue } from "../bank/json.js";
import type { Route } from "../bank/world-schema.js";
import { paginate } from "./paginate.js";
import { fail, ok, type Reply, withTerse } from "./reply.js";
import type { QueryState } from "./route-behaviours.js";
import { openJob, serveJob } from "./route-jobs.js";
import { enterState, transitionRefusal } from "./route-workflow.js";
import type { RouteRequest } from "./serve-route.js";
import type { TrialWorld } from "./trial-world.js";
import { isAbsent, summarizeProblems, terseProblems, validateBody } from "./validate-body.js";
import { wireLink } from "./versioning.js";

/** One request's view of its route's records: how a record is shown, how the addressed one is found. */
interface ActionContext {
  trial: TrialWorld;
  route: Route;
  req: RouteRequest;
  query: QueryState;
  idField: string;
  records: readonly JsonObject[];
  /**
   * A record as this route shows it: its view's overrides applied, its omitted fields removed; the
   * record itself (exposed) when its view changes nothing.
   */
  show: (r: JsonObject) => JsonObject;
  /** The record the path's id names, if this route may see it; else the 404. */
  find: () => { record: JsonObject } | { reply: Reply };
  versionField: string;
  versionOf: (r: JsonObject) => number;
  /** A nested route's parent parameters and their values (a create writes them onto the record). */
  parents: Array<[string, string]>;
}

/**
 * The route's action on the trial's records, after auth and behaviours: list, get, delete,
 * create/update (with staged writes, validation, optimistic concurrency, async jobs), or a job's
 * poll and confirm.
 */
export function act(trial: TrialWorld, route: Route, req: RouteRequest, query: QueryState): Reply {
  // What the world scheduled for now happens before the request is served (records move between reads).
  trial.settle();
  const ctx = actionContext(trial, route, req, query);
  switch (route.action) {
    case "list":
      return listRecords(ctx);
    case "get": {
      const found = ctx.find();
      if ("reply" in found) return found.reply;
      return ok(
        200,
        ctx.show(found.record),
        route.concurrency ? { etag: `"${ctx.versionOf(found.record)}"` } : {},
      );
    }
    case "delete": {
      const found = ctx.find();
      if ("reply" in found) return found.reply;
      ctx.trial.removeRecord(ctx.route.resource, found.record);
      return ok(204, null);
    }
    case "create":
    case "update":
      return writeRecord(ctx);
    case "job_status":
    case "job_confirm":
      return serveJob(trial, route, req.params.job_id ?? "", ctx.show);
  }
}

function actionContext(trial: TrialWorld, route: Route, req: RouteRequest, query: QueryState): ActionContext {
  const resource = trial.world.resources[route.resource];
  if (!resource) throw new Error(`route ${route.id} names unknown resource ${route.resource}`);
  const idField = resource.id_field;
  const overrides = trial.resolved(`overrides:${route.id}`, route.view.overrides) as JsonObject;
  const revealed = (route.query_params ?? [])
    .filter((p) => p.reveals_fields && query.on.has(p.name))
    .flatMap((p) => p.reveals_fields ?? []);
  const omit = route.view.omit_fields.filter((f) => !revealed.includes(f));
  // A route that shows records as they are hands out the records themselves (see `expose`).
  const show =
    omit.length === 0 && isEmpty(overrides)
      ? (r: JsonObject): JsonObject => trial.expose(r)
      : (r: JsonObject): JsonObject => {
          const out: JsonObject = { ...r, ...overrides };
          for (const f of omit) delete out[f];
          return out;
        };
  const parents = parentParams(route, req, resource.fields, idField);
  const all = trial.resource(route.resource);
  // A nested route (`/parents/{parent_id}/children`) sees only the children of the parent it names.
  const records =
    parents.length === 0 ? all : all.filter((r) => parents.every(([k, v]) => String(r[k]) === v));
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
  const versionField = route.concurrency?.version_field ?? "version";
  const versionOf = (r: JsonObject) =>
    typeof r[versionField] === "number" ? (r[versionField] as number) : 1;
  return { trial, route, req, query, idField, records, show, find, versionField, versionOf, parents };
}

function isEmpty(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}

/**
 * The path parameters of a nested route that name a parent: parameters other than the record's
 * own id (and a job id) that are fields of the route's resource.
 */
function parentParams(
  route: Route,
  req: RouteRequest,
  fields: Record<string, unknown>,
  idField: string,
): Array<[string, string]> {
  if (!route.path.includes("}/")) return [];
  return Object.entries(req.params).filter(([k]) => k !== idField && k !== "job_id" && k in fields);
}

function matches(record: JsonObject, where: Record<string, JsonValue>): boolean {
  for (const [field, want] of Object.entries(where)) {
    const have = record[field];
    if (have !== want && JSON.stringify(have) !== JSON.stringify(want)) return false;
  }
  return true;
}

/** Records this route can see: its view's `where`, hidden ones not unhidden, query filters. */
function visible(route: Route, records: readonly JsonObject[], query: QueryState): readonly JsonObject[] {
  const hidden = (route.query_params ?? []).filter((p) => p.unhides && !query.on.has(p.name));
  const where = route.view.where;
  if (!where && hidden.length === 0 && query.filters.length === 0) return records;
  return records.filter(
    (r) =>
      (!where || matches(r, where)) &&
      hidden.every((p) => !matches(r, p.unhides as Record<string, JsonValue>)) &&
      query.filters.every(([field, value, match]) =>
        match === "contains"
          ? String(r[field]).toLowerCase().includes(value.toLowerCase())
          : String(r[field]) === value,
      ),
  );
}

/** A listing: the visible records, paged in the route's style, with the notices of parameters left off. */
function listRecords({ trial, route, req, query, records, show }: ActionContext): Reply {
  const items = sorted(route, visible(route, records, query)).map(show);
  const notices = (route.query_params ?? [])
    .filter((p) => p.notice && !query.on.has(p.name))
    .map((p) => p.notice as string);
  const derived = route.aggregate ? { [route.aggregate.as]: sumOf(items, route.aggregate.field) } : {};
  const reply = route.pagination
    ? paginate(route.pagination, route.resource, items, route.id, req.url, (target) =>
        wireLink(trial.world, target),
      )
    : ok(200, { [route.resource]: items, total: items.length, ...derived });
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

/** The records in the route's `sort` order (a stable sort: ties keep their own order). */
function sorted(route: Route, records: readonly JsonObject[]): readonly JsonObject[] {
  const sort = route.sort;
  if (!sort) return records;
  const dir = sort.order === "desc" ? -1 : 1;
  const key = (r: JsonObject) => r[sort.field];
  return [...records].sort((x, y) => {
    const a = key(x);
    const b = key(y);
    if (a === b) return 0;
    if (a === undefined || a === null) return 1;
    if (b === undefined || b === null) return -1;
    return (a < b ? -1 : 1) * dir;
  });
}

/** The sum of a numeric field over records (a derived balance), rounded to cents. */
function sumOf(items: readonly JsonObject[], field: string): number {
  const total = items.reduce((n, r) => n + (typeof r[field] === "number" ? (r[field] as number) : 0), 0);
  return Math.round(total * 100) / 100;
}

const CONFIRM_HINT = 'resend the same request with "confirm": true in the body to commit the staged write';

/**
 * A create or update, in this order: the body is an object; the addressed record exists (update);
 * a staged write is committed by `confirm`; the body validates; the version matches (concurrency);
 * the first write of a partial-write route is staged (503); an async route opens a job; else commit.
 */
function writeRecord(ctx: ActionContext): Reply {
  const { trial, route, req, idField } = ctx;
  if (req.bodyError) return fail(req.bodyError.status, req.bodyError.error, req.bodyError.message);
  const body = req.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return fail(400, "invalid_body", "the request body must be a JSON object");
  }
  const found = route.action === "update" ? ctx.find() : null;
  if (found && "reply" in found) return found.reply;
  let target = found ? found.record : null;
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
          hint: CONFIRM_HINT,
        },
      );
    }
    trial.staged.delete(stagedKey);
    return commit(ctx, staged.record, target);
  }
  const invalid = validationReply(route, body);
  if (invalid) return invalid;
  if (target && route.concurrency) {
    // Another writer may change the record first: from here on this trial's own copy is read.
    target = trial.writable(route.resource, target);
    const conflict = concurrencyReply(ctx, target, body);
    if (conflict) return conflict;
  }
  const refused = target ? transitionRefusal(route, target, body, String(target[idField])) : null;
  if (refused) return refused;
  const record = target ? updatedRecord(ctx, body, target) : createdRecord(ctx, body);
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
        hint: CONFIRM_HINT,
      },
    );
  }
  if (!target && route.async_job) return openJob(trial, route, record);
  return commit(ctx, record, target);
}

/** The route's validator's problems (or, without one, a create's missing required fields) as a 4xx. */
function validationReply(route: Route, body: JsonObject): Reply | null {
  const problems = route.validator
    ? validateBody(route.validator, body, route.action as "create" | "update")
    : route.action === "create"
      ? route.required_fields
          .filter((f) => isAbsent(body[f]))
          .map((f) => ({ field: f, code: "missing" as const, message: "missing" }))
      : [];
  if (problems.length === 0) return null;
  const missing = problems.filter((p) => p.code === "missing").map((p) => p.field);
  const message = route.validator
    ? summarizeProblems(problems)
    : `missing required field(s): ${missing.join(", ")}`;
  const reply = fail(route.validator?.status ?? 422, "validation_failed", message, {
    errors: problems,
    missing,
  });
  if (!route.validator) return reply;
  const terse = terseProblems(problems);
  return withTerse(reply, summarizeProblems(problems, "terse"), {
    errors: terse,
    missing: terse.filter((p) => p.code === "missing").map((p) => p.field),
  });
}

/**
 * Optimistic concurrency on an update: on the declared call another writer changes the record
 * first; the update must carry the version last read (if-match or a body field), else 428/409.
 */
function concurrencyReply(ctx: ActionContext, target: JsonObject, body: JsonObject): Reply | null {
  const { trial, route, req, versionField, versionOf } = ctx;
  const concurrency = route.concurrency as NonNullable<Route["concurrency"]>;
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
    return withTerse(
      fail(428, "precondition_required", `this update needs ${how}`, { hint: reread }),
      "this update needs the version of your last read",
    );
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
  return null;
}

/** The body as the fields an update writes (the version field is the server's). */
function patchOf(route: Route, body: JsonObject, versionField: string): JsonObject {
  const patch: JsonObject = { ...body };
  if (route.concurrency) delete patch[versionField];
  return patch;
}

function updatedRecord(
  { route, req, idField, versionField }: ActionContext,
  body: JsonObject,
  target: JsonObject,
): JsonObject {
  return { ...patchOf(route, body, versionField), [idField]: target[idField] ?? req.params[idField] ?? "" };
}

function createdRecord(
  { trial, route, idField, versionField, parents }: ActionContext,
  body: JsonObject,
): JsonObject {
  return {
    ...patchOf(route, body, versionField),
    ...Object.fromEntries(parents),
    ...(trial.resolved(`defaults:${route.id}`, route.defaults) as JsonObject),
    [idField]: mintId(trial, route),
  };
}

function mintId(trial: TrialWorld, route: Route): string {
  const resource = trial.world.resources[route.resource];
  const template = resource?.id_template ?? "{canary}";
  const seq = trial.nextSeq(route.resource);
  return template.includes("{canary}")
    ? trial.mint(`${route.resource}:id`, template.replace("{canary}", "{code}").replace("{seq}", String(seq)))
    : template.replace("{seq}", String(seq).padStart(4, "0"));
}

/** Write the record: merged into the target (its version bumped when versioned), or appended. */
function commit(
  { trial, route, show, versionField }: ActionContext,
  record: JsonObject,
  existing: JsonObject | null,
): Reply {
  const versioned = route.concurrency !== undefined;
  if (existing) {
    const target = trial.writable(route.resource, existing);
    const version = typeof target[versionField] === "number" ? (target[versionField] as number) : 1;
    const before = route.workflow ? target[route.workflow.field] : undefined;
    Object.assign(target, record);
    enterState(trial, route, before, target);
    if (versioned) target[versionField] = version + 1;
    return ok(200, show(target), versioned ? { etag: `"${target[versionField]}"` } : {});
  }
  trial.addRecord(route.resource, record);
  return ok(201, show(record));
}
