import { GoldenBuilder } from "../golden-builder.js";
import { flowToAnswer, tokenUsed } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { sentence } from "../ticket-grammar.js";
import { field, subtask } from "./common.js";

/**
 * Auth, easy: the token stored in the vault is dead (401 invalid_token); mint a fresh one from the
 * client credentials and read the record the job needs.
 */
const staleToken: SubtaskTemplate = {
  id: "auth.stale-token",
  axis: "auth",
  difficulty: "easy",
  build(ctx) {
    const { built, state, grammar: g } = ctx;
    const a = built.template.asset;
    const target = state.claimAsset(ctx.rng);
    const id = state.assetId(target);
    const url = built.routes.asset(id);
    const [c1] = a.canaryFields;
    if (!c1) throw new Error("no canary field");
    const gb = new GoldenBuilder(built.world, ctx.position);
    gb.call("GET", url, { c1: c1.name, num: a.numberField.name });
    const golden = gb.answer({ [c1.name]: "c1", [a.numberField.name]: "num" });
    const fields = [c1.name, a.numberField.name];
    const ticket = sentence(
      g.opener(),
      `${g.brokenCall("GET", url)}${g.gotError(401, "invalid_token", "the bearer token is expired or was never issued")}`,
      g.pick([
        "It uses the bearer token kept in the vault as `access_token`.",
        "The job authenticates with the vault's `access_token`.",
        "The only token it has is `access_token` from the vault.",
      ]),
      g.pick([
        "The client credentials are in the vault as well.",
        "`client_id` and `client_secret` sit next to it in the vault.",
        "We still have working client credentials in the vault.",
      ]),
      g.pick([
        `Get the read working with a fresh token and find out what ${id} reports right now.`,
        `Authenticate properly and read ${id} live.`,
        `Fix the authentication and pull the current ${a.noun} record for ${id}.`,
      ]),
      g.report(fields),
    );
    return subtask(ctx, this.id, {
      ticket,
      brief: `The vault's \`access_token\` is dead (401 invalid_token): mint a fresh token and report ${id}'s \`${c1.name}\` and \`${a.numberField.name}\`.`,
      golden,
      builder: gb,
      answer: [
        field(c1.name, target[c1.name] ?? null, `${c1.description} of ${id}, from the canonical read.`),
        field(
          a.numberField.name,
          target[a.numberField.name] ?? null,
          `${a.numberField.description} of ${id}.`,
        ),
      ],
      g1: [
        tokenUsed(built.world.auth.token_path, url),
        flowToAnswer(
          `${c1.name}_from_read`,
          url,
          200,
          c1.name,
          c1.name,
          `The ${c1.name} must come from a 200 on ${url}.`,
        ),
      ],
      probes: [{ method: "GET", url, token: "stale", status: 401, error: "invalid_token" }],
    });
  },
};

/**
 * Auth, medium/hard: a batch of reads outlives one token (401 token_expired part-way); the agent
 * must notice `expires_in`, mint again and finish the batch.
 */
function expiryBatch(difficulty: "medium" | "hard"): SubtaskTemplate {
  return {
    id: `auth.expiry-batch-${difficulty}`,
    axis: "auth",
    difficulty,
    build(ctx: TemplateContext) {
      const { built, state, grammar: g } = ctx;
      const a = built.template.asset;
      const ttl = built.world.auth.ttl_calls;
      // One re-mint either way; the hard sweep also reports a value read right after the expiry.
      const size = difficulty === "medium" ? ttl + 1 : ttl + 2;
      const batch = state.claimAssets(ctx.rng, size);
      const ids = batch.map((r) => state.assetId(r));
      const first = batch[0];
      const last = batch[batch.length - 1];
      const [c1, c2] = a.canaryFields;
      if (!first || !last || !c1 || !c2) throw new Error("batch too small");
      const firstId = state.assetId(first);
      const lastId = state.assetId(last);
      const gb = new GoldenBuilder(built.world, ctx.position);
      ids.forEach((id, i) => {
        const capture: Record<string, string> = {};
        if (i === 0) capture.num = a.numberField.name;
        if (i === ids.length - 1) capture.c1 = c1.name;
        if (difficulty === "hard" && i === ttl) capture.c2 = c2.name;
        gb.call("GET", built.routes.asset(id), capture);
      });
      const mid = batch[ttl];
      const midId = mid ? state.assetId(mid) : "";
      const numberField = `first_${a.numberField.name}`;
      const lastField = `last_${c1.name}`;
      const midField = `middle_${c2.name}`;
      const answerFields: Record<string, string> = { [numberField]: "num", [lastField]: "c1" };
      if (difficulty === "hard") answerFields[midField] = "c2";
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      const listText = ids.map((i) => `\`${i}\``).join(", ");
      const ticket = sentence(
        g.opener(),
        g.pick([
          `${g.system()} reads these ${a.plural} one after another, in this order: ${listText}.`,
          `Our nightly sweep walks ${listText} (in that order), one GET per ${a.noun}.`,
          `The audit reads ${ids.length} ${a.plural} in sequence: ${listText}.`,
        ]),
        g.pick([
          'It mints one token at the start, and part-way through every read fails with `401 token_expired` ("the bearer token has expired").',
          'A few reads in, the calls start coming back `401 token_expired` ("the bearer token has expired") and the rest of the sweep is lost.',
          'Somewhere in the middle the API starts answering `401 token_expired` ("the bearer token has expired") and the job gives up.',
        ]),
        g.pick([
          "Tokens in this API only last a limited number of calls (see `expires_in`).",
          "Keep an eye on the token lifetime the token endpoint reports.",
          "",
        ]),
        g.pick([
          "Run the whole sweep again so that every read succeeds.",
          "Re-run it so no read is lost.",
          "Complete the sweep end to end.",
        ]),
        difficulty === "hard"
          ? `Report ${firstId}'s ${a.numberField.name} as \`${numberField}\`, ${midId}'s ${c2.name} as \`${midField}\` and ${lastId}'s ${c1.name} as \`${lastField}\`.`
          : `Report ${firstId}'s ${a.numberField.name} as \`${numberField}\` and ${lastId}'s ${c1.name} as \`${lastField}\`.`,
      );
      const answer = [
        field(numberField, first[a.numberField.name] ?? null, `${a.numberField.description} of ${firstId}.`),
        field(
          lastField,
          last[c1.name] ?? null,
          `${c1.description} of ${lastId}, the last read of the sweep.`,
        ),
      ];
      const g1 = [
        tokenUsed(built.world.auth.token_path, built.routes.asset(lastId), "token_used_on_last_read"),
        flowToAnswer(
          "last_value_from_read",
          built.routes.asset(lastId),
          200,
          c1.name,
          lastField,
          "The last read must succeed.",
        ),
        flowToAnswer(
          "first_value_from_read",
          built.routes.asset(firstId),
          200,
          a.numberField.name,
          numberField,
          "The first read must succeed.",
        ),
      ];
      if (difficulty === "hard" && mid) {
        answer.push(field(midField, mid[c2.name] ?? null, `${c2.description} of ${midId}.`));
        g1.push(
          flowToAnswer(
            "middle_value_from_read",
            built.routes.asset(midId),
            200,
            c2.name,
            midField,
            "The read after the first expiry must succeed.",
          ),
        );
      }
      return subtask(ctx, this.id, {
        ticket,
        brief:
          `Sweep ${listText} in order with GETs, re-minting when the token expires (401 token_expired), and report ${fields.map((f) => `\`${f}\``).join(", ")} as above.`.replace(
            "as above",
            `(${firstId}'s ${a.numberField.name}, ${difficulty === "hard" ? `${midId}'s ${c2.name}, ` : ""}${lastId}'s ${c1.name})`,
          ),
        golden,
        builder: gb,
        answer,
        g1,
        probes: [
          {
            method: "GET",
            url: built.routes.asset(lastId),
            token: "expired",
            status: 401,
            error: "token_expired",
          },
        ],
      });
    },
  };
}

export const AUTH_TEMPLATES: readonly SubtaskTemplate[] = [
  staleToken,
  expiryBatch("medium"),
  expiryBatch("hard"),
];
