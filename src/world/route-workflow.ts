import type { JsonObject } from "../bank/json.js";
import type { Route, Workflow } from "../bank/world-schema.js";
import { fail, type Reply, withTerse } from "./reply.js";
import type { TrialWorld } from "./trial-world.js";

/**
 * The 409 an update gets when it would move a record along no allowed transition of the route's
 * workflow, or null when the move is allowed (or the update moves nothing). The full error names
 * the states the record may move to; the terse one (a hard task's) says only what was refused.
 *
 * @example transitionRefusal(route, { state: "draft" }, { state: "approved" }, "CR-0042")?.status // 409
 */
export function transitionRefusal(
  route: Route,
  target: JsonObject,
  body: JsonObject,
  recordId: string,
): Reply | null {
  const flow = route.workflow;
  if (!flow || !(flow.field in body)) return null;
  const from = String(target[flow.field]);
  const to = String(body[flow.field]);
  if (from === to) return null;
  const allowed = flow.transitions[from] ?? [];
  if (allowed.includes(to)) return null;
  const refused = `${route.resource} ${recordId} is ${from} and cannot move to ${to}`;
  const next = allowed.length > 0 ? allowed.join(", ") : "nothing (it is final)";
  return withTerse(
    fail(409, "invalid_transition", `${refused}; from ${from} it may move to: ${next}`, {
      from,
      to,
      allowed,
      hint:
        allowed.length > 0
          ? `move it one allowed step at a time (${from} → ${allowed.join(" | ")}), re-reading its ${flow.field} as you go`
          : `${from} is a final state: no update moves it`,
    }),
    refused,
  );
}

/**
 * What the world does as a write moves `record` into a new state of the route's workflow: the
 * `on_enter` fields minted with the write itself (`after_seconds` 0) are set on `record`; later
 * ones are scheduled (`TrialWorld.pending`), so only a read after them shows them.
 *
 * @example enterState(trial, route, "draft", record) // record.state is now "submitted"
 */
export function enterState(trial: TrialWorld, route: Route, before: unknown, record: JsonObject): void {
  const flow: Workflow | undefined = route.workflow;
  if (!flow) return;
  const state = String(record[flow.field]);
  if (state === String(before)) return;
  const effect = flow.on_enter?.[state];
  if (!effect) return;
  const idField = trial.world.resources[route.resource]?.id_field ?? "id";
  const id = String(record[idField]);
  const changes: JsonObject = {};
  for (const [field, format] of Object.entries(effect.mint))
    changes[field] = trial.mint(`${route.resource}:${field}:${id}`, format);
  const after = effect.after_seconds ?? 0;
  if (after === 0) Object.assign(record, changes);
  else trial.pending.push({ resource: route.resource, idField, id, due: trial.clock + after, changes });
}
