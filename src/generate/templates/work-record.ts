import type { ExpectedValue, G1Predicate } from "../../bank/task-schema.js";
import type { BuiltWorld, SymRecord } from "../build-world.js";
import type { GoldenBuilder } from "../golden-builder.js";
import { flowToAnswer, re } from "../story-state.js";
import type { TemplateContext } from "../subtask-template.js";
import { canaries, claimTarget, fieldEndsAs } from "./common.js";

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

/**
 * G1: the copy field sent to `sentTo` (in the body at `bodyKey`, the copy field's own name unless
 * the route spells it otherwise) must be the one a live read of asset `assetId` returned.
 */
export function copyReadLive(
  built: BuiltWorld,
  assetId: string,
  sentTo: string,
  bodyKey = built.template.work.copyField,
): G1Predicate {
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
    used_in_slot: { in: "body", key: bodyKey },
  };
}

/** G1: the reported work-record id must come from the 201 of the create at `url`. */
export function idFromCreate(
  built: BuiltWorld,
  predicateId: string,
  url: string,
  explain: string,
): G1Predicate {
  const w = built.template.work;
  return flowToAnswer(predicateId, url, 201, w.idField, w.idField, explain);
}

/**
 * Link the new work record onto its asset, as golden step and story-state effect: the asset's
 * update writes the record's id (captured earlier as `wid`) into the link field; its answer is
 * captured as `link`, with the second canary as `c2`.
 */
export function linkWorkOnAsset(
  gb: GoldenBuilder,
  built: BuiltWorld,
  assetId: string,
  asset: SymRecord,
  wid: ExpectedValue,
): void {
  const t = built.template;
  const a = t.asset;
  const [, c2] = canaries(a);
  gb.call(
    t.updateMethod,
    built.routes.asset(assetId),
    { link: a.linkField.name, c2: c2.name },
    { [a.linkField.name]: gb.ref("wid") },
  );
  asset[a.linkField.name] = wid;
}

/** G1: the reported link field must come from a 200 of asset `assetId`'s own route. */
export function linkFromAsset(
  built: BuiltWorld,
  predicateId: string,
  assetId: string,
  explain: string,
): G1Predicate {
  const link = built.template.asset.linkField.name;
  return flowToAnswer(predicateId, built.routes.asset(assetId), 200, link, link, explain);
}

/**
 * G1: asset `assetId` ends linked to the new work record (agent audit, dec: the link written and
 * then cleared, the asset ending with no link, passed: the link was held by the id sent alone).
 */
export function linkSticks(built: BuiltWorld, assetId: string, wid: ExpectedValue): G1Predicate {
  const a = built.template.asset;
  return fieldEndsAs(
    "link_final",
    `${assetId}'s ${a.linkField.name} must end naming the new ${built.template.work.noun}.`,
    { resource: a.plural, where: { [a.idField]: assetId } },
    a.linkField.name,
    wid,
  );
}
