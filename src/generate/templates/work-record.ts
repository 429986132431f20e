import type { G1Predicate } from "../../bank/task-schema.js";
import type { BuiltWorld, SymRecord } from "../build-world.js";
import { re } from "../story-state.js";
import type { TemplateContext } from "../subtask-template.js";
import { claimTarget } from "./common.js";

/**
 * Claim a fresh asset for a job that opens a work record on it, and pick the level the record is
 * opened at (in that order: both draw on the context's rng).
 */
export function claimForWork(ctx: TemplateContext): { target: SymRecord; id: string; level: string } {
  const { target, id } = claimTarget(ctx);
  const level = ctx.grammar.pick(ctx.built.template.work.levelField.values);
  return { target, id, level };
}

/**
 * The create body of a work record for asset `assetId`: its id, the level, and the copy field's
 * value — a golden reference (`gb.ref("copy")`), the live value the story state records, or a
 * probe's placeholder.
 */
export function workBody<V>(built: BuiltWorld, assetId: string, level: string, copy: V) {
  const t = built.template;
  return { [t.asset.idField]: assetId, [t.work.levelField.name]: level, [t.work.copyField]: copy };
}

/** G1: the copy field sent to `sentTo` must be the one a live read of asset `assetId` returned. */
export function copyReadLive(built: BuiltWorld, assetId: string, sentTo: string): G1Predicate {
  const w = built.template.work;
  return {
    kind: "data_flow",
    id: "copy_field_read_live",
    explain: `The ${w.copyField} sent must be the one read from ${assetId}.`,
    from_response_url_pattern: `^${re(built.routes.asset(assetId))}$`,
    from_status: 200,
    from_body_key: w.copyField,
    must_be_stored: false,
    used_in_request_url_pattern: `^${re(sentTo)}$`,
  };
}
