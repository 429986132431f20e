import type { G1Predicate, Requirement } from "../../bank/task-schema.js";
import { authScheme, credentialNoun, staleCredentialName } from "../../world/credential.js";
import { SIGNATURE_HEADERS } from "../../world/request-signature.js";
import { GoldenBuilder } from "../golden-builder.js";
import { flowToAnswer, re, tokenUsed } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { cap } from "../ticket-grammar.js";
import { SIGNED_VIEW } from "../world-builders/behaviour-routes.js";
import {
  canaries,
  canaryAndNumber,
  canaryFromRead,
  claimTarget,
  field,
  readCanaryAndNumber,
  reportRequirement,
  subtask,
} from "./common.js";

/**
 * Auth: the vault's token is stale. easy: the ticket says where the token and the client
 * credentials are; medium: it quotes the 401 only, and the agent works out the rest from the vault.
 */
function staleToken(difficulty: "easy" | "medium"): SubtaskTemplate {
  return {
    id: difficulty === "easy" ? "auth.stale-token" : `auth.stale-token-${difficulty}`,
    axis: "auth",
    difficulty,
    build(ctx) {
      const { built, grammar: g } = ctx;
      const a = built.template.asset;
      const { target, id } = claimTarget(ctx);
      const url = built.routes.asset(id);
      const [c1] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position);
      const golden = readCanaryAndNumber(gb, a, url, c1, "c1");
      const fields = [c1.name, a.numberField.name];
      const story = [
        g.opener(),
        difficulty === "easy"
          ? `${g.brokenCall("GET", url)}${g.gotError(401, "token_expired", `the ${credentialNoun(built.world.auth)} has expired`)}`
          : `${g.brokenCall("GET", url)}${g.gotError(401, "token_expired")}`,
        difficulty === "easy"
          ? g.pick([
              `It uses the ${credentialNoun(built.world.auth)} kept in the vault as \`${staleCredentialName(built.world.auth)}\`.`,
              `The job authenticates with the vault's \`${staleCredentialName(built.world.auth)}\`.`,
              `Its one credential is \`${staleCredentialName(built.world.auth)}\` from the vault.`,
            ])
          : "",
        difficulty === "easy"
          ? authScheme(built.world.auth) === "refresh_rotation"
            ? g.pick([
                "The client's `refresh_token` is in the vault as well.",
                "A `refresh_token` for this client sits next to it in the vault.",
              ])
            : g.pick([
                "The client credentials are in the vault as well.",
                "`client_id` and `client_secret` sit next to it in the vault.",
                "We still have working client credentials in the vault.",
              ])
          : g.pick([
              "Nobody on shift knows how that job authenticates.",
              "The job has not been touched in months.",
            ]),
      ];
      const requirements: Requirement[] = [
        {
          kind: "value_flow",
          id: "fresh_token_read",
          sentence: g.pick([
            `Get the read working with a fresh token and find out what ${id} reports right now.`,
            `Authenticate properly and read ${id} live.`,
            `Fix the authentication and pull the current ${a.noun} record for ${id}.`,
          ]),
          brief: `Mint a fresh token and read ${id} with it.`,
          predicates: ["fresh_token_used"],
        },
        {
          ...reportRequirement(g, fields),
          brief: `Report ${id}'s \`${c1.name}\` and \`${a.numberField.name}\`.`,
        },
      ];
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `The vault's \`${staleCredentialName(built.world.auth)}\` has expired (401 ${g.code("token_expired")}).`,
          ...requirements,
        ],
        golden,
        builder: gb,
        answer: canaryAndNumber(a, target, id, c1, `${c1.description} of ${id}, from the canonical read.`),
        g1: [
          tokenUsed(built.world.auth, url),
          canaryFromRead(`${c1.name}_from_read`, url, c1, `The ${c1.name} must come from a 200 on ${url}.`),
        ],
        probes: [{ method: "GET", url, token: "stale", status: 401, error: "token_expired" }],
      });
    },
  };
}

/**
 * Auth, medium/hard, time-based expiry: a sweep pauses (on the world's logical clock, through
 * `x-apiflow-wait`) for longer than a token lives, so the read after each pause gets 401
 * token_expired. The careful run notices `expires_in`, pauses, takes a fresh token, then reads.
 * medium: one pause in three reads; hard: two pauses in five reads, with a value from each stretch.
 */
function clockExpiry(difficulty: "medium" | "hard"): SubtaskTemplate {
  return {
    id: `auth.clock-expiry-${difficulty}`,
    axis: "auth",
    difficulty,
    build(ctx: TemplateContext) {
      const { built, state, grammar: g } = ctx;
      const a = built.template.asset;
      const pause = built.ttlSeconds + ctx.rng.int(0, 6);
      const size = difficulty === "medium" ? 3 : 5;
      const pausesBefore = difficulty === "medium" ? [2] : [2, 4];
      const batch = state.claimAssets(ctx.rng, size);
      const ids = batch.map((r) => state.assetId(r));
      const [c1, c2] = a.canaryFields;
      const first = batch[0];
      const last = batch[size - 1];
      const mid = batch[2];
      if (!first || !last || !mid || !c1 || !c2) throw new Error("batch too small");
      const [firstId, midId, lastId] = [state.assetId(first), state.assetId(mid), state.assetId(last)];
      const gb = new GoldenBuilder(built.world, ctx.position);
      ids.forEach((id, i) => {
        const capture: Record<string, string> = {};
        if (i === 0) capture.num = a.numberField.name;
        if (i === size - 1) capture.c1 = c1.name;
        if (difficulty === "hard" && i === 2) capture.c2 = c2.name;
        gb.call("GET", built.routes.asset(id), capture, undefined, {
          wait: pausesBefore.includes(i) ? pause : 0,
        });
      });
      const numberField = `first_${a.numberField.name}`;
      const lastField = `last_${c1.name}`;
      const midField = `middle_${c2.name}`;
      const answerFields: Record<string, string> = { [numberField]: "num", [lastField]: "c1" };
      if (difficulty === "hard") answerFields[midField] = "c2";
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      const order = ids
        .map((id, i) => (pausesBefore.includes(i) ? `(pause) \`${id}\`` : `\`${id}\``))
        .join(", ");
      const story = [
        g.opener(),
        g.pick([
          `${cap(g.system())} reads ${ids.length} ${a.plural} one after the other, pausing where marked while the depot sync runs: ${order}.`,
          `Our nightly sweep walks ${order} (one GET each, in the listed sequence), and waits for the upstream sync at each "(pause)".`,
        ]),
        `Each pause is ${pause} s; this API's clock is logical, so the job pauses by sending the next request with header \`x-apiflow-wait: ${pause}\`.`,
        g.pick([
          `The first read after a pause comes back ${g.quoteError(401, "token_expired", `the ${credentialNoun(built.world.auth)} has expired`)} and the rest of the sweep is lost.`,
          `After the pause every read fails with ${g.quoteError(401, "token_expired", `the ${credentialNoun(built.world.auth)} has expired`)}.`,
        ]),
        g.pick([
          "Tokens here live for a number of seconds, not calls (see `expires_in`).",
          "How long a token lives is in the token response's `expires_in`.",
        ]),
      ];
      // The pauses are demanded and held per pause (`pauseKept`: the read after one may go
      // through any route that serves the record); the first states the sentence for all.
      const pauses = pausesBefore.map((at, k): Requirement => {
        const p = pauseKept(built, ids, at, pause);
        return {
          kind: "ordering",
          id: p.id,
          ...(k === 0
            ? {
                sentence: `Keep every pause where it is marked, ${pause} s each: the sync needs it.`,
                brief: `Keep each ${pause} s pause where marked.`,
              }
            : {}),
          predicates: [p.id],
          before: p.before,
          after: p.after,
          min_wait_seconds: pause,
          from_first_before: true,
        };
      });
      const requirements: Requirement[] = [
        ...pauses,
        {
          kind: "value_flow",
          id: "every_read_live",
          sentence: g.pick([
            "Run the whole sweep again so that every read succeeds.",
            "Re-run it end to end without losing a read.",
          ]),
          brief: "Re-run the sweep so that every read succeeds.",
          predicates: ["token_used_on_last_read"],
        },
        briefed(
          reportRequirement(
            g,
            fields,
            difficulty === "hard"
              ? `Report ${firstId}'s ${a.numberField.name} as \`${numberField}\`, ${midId}'s ${c2.name} as \`${midField}\` and ${lastId}'s ${c1.name} as \`${lastField}\`.`
              : `Report ${firstId}'s ${a.numberField.name} as \`${numberField}\` and ${lastId}'s ${c1.name} as \`${lastField}\`.`,
          ),
        ),
      ];
      const answer = [
        field(numberField, first[a.numberField.name] ?? null, `${a.numberField.description} of ${firstId}.`),
        field(lastField, last[c1.name] ?? null, `${c1.description} of ${lastId}, read after the last pause.`),
      ];
      const g1 = [
        tokenUsed(built.world.auth, built.routes.asset(lastId), "token_used_on_last_read"),
        flowToAnswer(
          "last_value_from_read",
          built.routes.asset(lastId),
          200,
          c1.name,
          lastField,
          "The read after the last pause must succeed.",
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
      g1.push(...pausesBefore.map((at) => pauseKept(built, ids, at, pause) as G1Predicate));
      // Under refresh-token rotation the token after a pause can only come from the refresh token
      // an earlier grant returned: the renewal is the auth work, and the pauses force it.
      if (authScheme(built.world.auth) === "refresh_rotation")
        g1.push(refreshTokenUsed(built.world.auth.token_path));
      if (difficulty === "hard") {
        answer.push(field(midField, mid[c2.name] ?? null, `${c2.description} of ${midId}.`));
        g1.push(
          flowToAnswer(
            "middle_value_from_read",
            built.routes.asset(midId),
            200,
            c2.name,
            midField,
            "The read after the first pause must succeed.",
          ),
        );
      }
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `A sweep reads ${order} with GETs, pausing ${pause} s (\`x-apiflow-wait: ${pause}\`) at each "(pause)"; after a pause a read gets 401 ${g.code("token_expired")}.`,
          ...requirements.filter((r) => r.sentence !== undefined),
        ],
        golden,
        builder: gb,
        answer,
        g1,
        probes: [
          {
            method: "GET",
            url: built.routes.asset(lastId),
            token: "fresh",
            wait: pause,
            status: 401,
            error: "token_expired",
          },
        ],
      });
    },
  };
}

/**
 * Auth: reads need a scope the default token lacks, and a token carrying it is short-lived (its
 * `expires_in` counts a few logical seconds, one per request), so the audit views of the batch
 * outlive the first elevated token. medium: the ticket quotes the 403 with the scope it names and
 * says elevated tokens are short-lived; hard: it quotes the code only, so the scope is read from
 * the live 403 and the lifetime from the token response.
 */
function missingScope(difficulty: "medium" | "hard"): SubtaskTemplate {
  return {
    id: difficulty === "medium" ? "auth.missing-scope" : `auth.missing-scope-${difficulty}`,
    axis: "auth",
    difficulty,
    build(ctx) {
      const { built, state, grammar: g } = ctx;
      const a = built.template.asset;
      const { target, id } = claimTarget(ctx);
      const url = `${built.routes.asset(id)}/audit`;
      // One audit read more than an elevated token serves (it serves life − 1 after its mint).
      const life = built.world.auth.scope_ttl_seconds?.[built.auditScope] ?? 2;
      const rest = state.claimAssets(ctx.rng, life - 1);
      const last = rest[rest.length - 1] ?? target;
      const lastId = state.assetId(last);
      const lastUrl = `${built.routes.asset(lastId)}/audit`;
      const [c1, c2] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position);
      // Hard: the failing read first, whose 403 names the scope (required_scope and the challenge).
      if (difficulty === "hard") gb.call("GET", url);
      gb.mintOwn({ scope: built.auditScope });
      gb.call("GET", url, { c1: c1.name, c2: c2.name }, undefined, { own: true });
      rest.forEach((r, i) => {
        const capture: Record<string, string> = i === rest.length - 1 ? { last: c1.name } : {};
        gb.call("GET", `${built.routes.asset(state.assetId(r))}/audit`, capture, undefined, { own: true });
      });
      const lastField = `last_${c1.name}`;
      const golden = gb.answer({ [c1.name]: "c1", [c2.name]: "c2", [lastField]: "last" });
      const fields = [c1.name, c2.name, lastField];
      const order = [id, ...rest.map((r) => state.assetId(r))].map((x) => `\`${x}\``).join(", ");
      const story = [
        g.opener(),
        difficulty === "medium"
          ? `${g.brokenCall("GET", url)}${g.gotError(403, "insufficient_scope", `the ${authScheme(built.world.auth) === "api_key" ? "API key" : "token"} lacks scope ${built.auditScope}`)}`
          : `${g.brokenCall("GET", url)}${g.gotError(403, "insufficient_scope")}`,
        authScheme(built.world.auth) === "refresh_rotation"
          ? "It gets its token with the client's refresh token from the vault, like every other job."
          : authScheme(built.world.auth) === "api_key"
            ? "It uses an ordinary API key, issued for the client credentials in the vault."
            : g.pick([
                "It mints its token with the client credentials from the vault, like every other job.",
                "The token it uses is a normal client-credentials token.",
              ]),
        difficulty === "medium" ? "Tokens that carry the audit scope are short-lived here." : "",
      ];
      const requirements: Requirement[] = [
        {
          kind: "value_flow",
          id: "audit_views_read",
          sentence: `Read the audit views of ${order} for the compliance team (\`GET …/{id}/audit\` each).`,
          brief: `Read the audit views of ${order}.`,
          predicates: ["last_audit_read"],
        },
        {
          ...reportRequirement(
            g,
            fields,
            `\`${lastField}\` is ${lastId}'s ${c1.name}; the other two are ${id}'s. ${g.report(fields)}`,
          ),
          brief: `Report ${id}'s \`${c1.name}\` and \`${c2.name}\` and ${lastId}'s ${c1.name} as \`${lastField}\`.`,
        },
      ];
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `The audit read \`GET ${url}\` gets 403 ${g.code("insufficient_scope")}${difficulty === "medium" ? ` (${built.auditScope})` : ""}; a token that carries the scope lives ${life} logical seconds.`,
          ...requirements,
        ],
        golden,
        builder: gb,
        answer: [
          field(c1.name, target[c1.name] ?? null, `${c1.description} of ${id}, from the audit view.`),
          field(c2.name, target[c2.name] ?? null, `${c2.description} of ${id}, from the audit view.`),
          field(lastField, last[c1.name] ?? null, `${c1.description} of ${lastId}, from its audit view.`),
        ],
        g1: [
          canaryFromRead(`${c1.name}_from_audit`, url, c1, "The audit read must succeed."),
          flowToAnswer(
            "last_audit_read",
            lastUrl,
            200,
            c1.name,
            lastField,
            "The last audit read, after the first elevated token has expired, must succeed.",
          ),
        ],
        probes: [{ method: "GET", url, token: "fresh", status: 403, error: "insufficient_scope" }],
      });
    },
  };
}

/**
 * Auth, hard: the client secret is being rotated, so the sweep may mint with client credentials
 * once and must renew with the refresh token (single use: each refresh returns the next one).
 */
const refreshRenewal: SubtaskTemplate = {
  id: "auth.refresh-renewal",
  axis: "auth",
  difficulty: "hard",
  build(ctx) {
    const { built, state, grammar: g } = ctx;
    const a = built.template.asset;
    const pause = built.ttlSeconds + ctx.rng.int(1, 5);
    const batch = state.claimAssets(ctx.rng, 3);
    const [first, mid, last] = batch;
    const [c1, c2] = a.canaryFields;
    if (!first || !mid || !last || !c1 || !c2) throw new Error("batch too small");
    const ids = batch.map((r) => state.assetId(r));
    const [firstId, midId, lastId] = [state.assetId(first), state.assetId(mid), state.assetId(last)];
    const gb = new GoldenBuilder(built.world, ctx.position).mintOwn({ refresh: true });
    ids.forEach((id, i) => {
      const capture: Record<string, string> = {};
      if (i === 0) capture.num = a.numberField.name;
      if (i === 1) capture.c2 = c2.name;
      if (i === ids.length - 1) capture.c1 = c1.name;
      gb.call("GET", built.routes.asset(id), capture, undefined, { own: true, wait: i > 0 ? pause : 0 });
    });
    const numberField = `first_${a.numberField.name}`;
    const lastField = `last_${c1.name}`;
    // Every read is reported: a renewal that fails once must not be hidden by a later one.
    const midField = `middle_${c2.name}`;
    const golden = gb.answer({ [numberField]: "num", [midField]: "c2", [lastField]: "c1" });
    const list = ids.map((i) => `\`${i}\``).join(", ");
    const rotation = authScheme(built.world.auth) === "refresh_rotation";
    const opener = g.opener();
    const sys = cap(g.system());
    const story = [
      opener,
      rotation
        ? `${sys} holds no client secret: it renews its token with the \`refresh_token\` (\`grant_type=refresh_token\`), starting from the one in the vault.`
        : `The client secret is being rotated tonight.`,
      `${sys} reads ${list}, pausing ${pause} s ahead of each read after the first (it sends \`x-apiflow-wait: ${pause}\`).`,
      g.pick([
        `After each pause the read fails with ${g.quoteError(401, "token_expired", `the ${credentialNoun(built.world.auth)} has expired`)}.`,
        `The read after a pause answers ${g.quoteError(401, "token_expired", `the ${credentialNoun(built.world.auth)} has expired`)}.`,
      ]),
      "Each refresh token is good for one use.",
    ];
    // "Mint with the client credentials only once" is not demanded: in a chain the session's
    // shared token is renewed with the client credentials inside this segment (a careful agent
    // whose extra calls spent it), and no predicate tells this job's mints from those.
    const requirements: Requirement[] = [
      ...(rotation
        ? []
        : [
            {
              kind: "value_flow" as const,
              id: "renewed_with_refresh_token",
              sentence: `Renew its token at each pause with the \`refresh_token\` the token endpoint returns (\`grant_type=refresh_token\`).`,
              brief: "Renew the token at each pause with `grant_type=refresh_token`.",
              // Every renewal: one refresh, then a second client-credentials mint, is not it.
              predicates: ["refresh_token_used", "renewed_at_each_pause"],
            },
          ]),
      {
        kind: "value_flow",
        id: "every_read_live",
        sentence: "Make every read of the sweep succeed.",
        brief: "Make every read succeed.",
        predicates: ["last_value_from_read"],
      },
      briefed(
        reportRequirement(
          g,
          [numberField, midField, lastField],
          `Report ${firstId}'s ${a.numberField.name} as \`${numberField}\`, ${midId}'s ${c2.name} as \`${midField}\` and ${lastId}'s ${c1.name} as \`${lastField}\`.`,
        ),
      ),
    ];
    return subtask(ctx, this.id, {
      story,
      requirements,
      brief: [
        `A sweep reads ${list}, pausing ${pause} s (\`x-apiflow-wait: ${pause}\`) ahead of each read after the first; each refresh token is good for one use.`,
        rotation && "The job holds no client secret: it renews its token with `grant_type=refresh_token`.",
        ...requirements,
      ],
      golden,
      builder: gb,
      answer: [
        field(numberField, first[a.numberField.name] ?? null, `${a.numberField.description} of ${firstId}.`),
        field(midField, mid[c2.name] ?? null, `${c2.description} of ${midId}, read after the first renewal.`),
        field(lastField, last[c1.name] ?? null, `${c1.description} of ${lastId}.`),
      ],
      g1: [
        refreshTokenUsed(built.world.auth.token_path),
        ...(rotation ? [] : [refreshedTimes(built.world.auth.token_path, ids.length - 1)]),
        flowToAnswer(
          "last_value_from_read",
          built.routes.asset(lastId),
          200,
          c1.name,
          lastField,
          "The read after the last pause must succeed.",
        ),
      ],
      probes: [
        {
          method: "GET",
          url: built.routes.asset(lastId),
          token: "fresh",
          wait: pause,
          status: 401,
          error: "token_expired",
        },
      ],
    });
  },
};

/** A report requirement whose chain-step brief is its full sentence (it names which record each field is from). */
function briefed(r: Requirement): Requirement {
  return { ...r, brief: r.sentence as string };
}

/**
 * A sweep's pause before read `at`: the read after it comes at least `pause` logical seconds after
 * the read before it. The read before (`at - 1`) captures nothing, so a careful agent reads it on
 * its own route; the read after may be taken through the asset's nested routes or the listing, and
 * is measured from the first read before the pause (`from_first_before`), so a listing read earlier
 * for another asset of the sweep does not count.
 */
function pauseKept(
  built: TemplateContext["built"],
  ids: readonly string[],
  at: number,
  pause: number,
): Extract<G1Predicate, { kind: "order" }> {
  const [prev, next] = [ids[at - 1], ids[at]];
  if (prev === undefined || next === undefined) throw new Error(`no read around pause ${at}`);
  const list = re(built.routes.listAssets);
  return {
    kind: "order",
    id: `paused_before_${next}`,
    explain: `The sweep pauses ${pause} s between reading ${prev} and reading ${next}.`,
    before: { method: "GET", url_pattern: `^${re(built.routes.asset(prev))}$`, status: 200 },
    after: {
      method: "GET",
      url_pattern: `^${list}(?:/${re(next)}(?:/[^/?]+)?)?(\\?.*)?$`,
      status: 200,
    },
    min_wait_seconds: pause,
    from_first_before: true,
  };
}

/** G1: a refresh token the token endpoint issued is sent back to it (`grant_type=refresh_token`). */
function refreshTokenUsed(tokenPath: string): G1Predicate {
  const tokenRe = `^${re(tokenPath)}$`;
  return {
    kind: "data_flow",
    id: "refresh_token_used",
    explain: "A refresh token the token endpoint issued must be sent back to it (grant_type=refresh_token).",
    from_response_url_pattern: tokenRe,
    from_status: 200,
    from_body_key: "refresh_token",
    must_be_stored: false,
    used_in_request_url_pattern: tokenRe,
    used_in_slot: { in: "body", key: "refresh_token" },
  };
}

/**
 * G1: the token endpoint answered `n` refresh grants (`grant_type=refresh_token`), one per pause
 * of the sweep: a renewal done by minting with the client credentials again does not count.
 */
function refreshedTimes(tokenPath: string, n: number): G1Predicate {
  return {
    kind: "call_count",
    id: "renewed_at_each_pause",
    explain: `Each of the ${n} renewals must be a refresh grant (grant_type=refresh_token).`,
    call: {
      method: "POST",
      url_pattern: `^${re(tokenPath)}$`,
      status: 200,
      sent: { grant_type: "refresh_token" },
    },
    min: n,
  };
}

/**
 * Auth, medium: signed requests. The asset's attestation view takes no token: its client sent the
 * bearer token it uses everywhere else and got 401 missing_signature. The careful run reads the
 * spec's signature scheme, and signs the read with the client credentials (`X-Key-Id` the
 * client_id, the nonce the ticket gives, `sign` with the client_secret). The attestation code is
 * served by that route alone. In a world whose client holds no secret (refresh-token rotation),
 * the world has no signed route and the position is a stale-token task instead.
 */
const signedRead: SubtaskTemplate = {
  id: "auth.signed-read",
  axis: "auth",
  difficulty: "medium",
  build(ctx) {
    const { built, grammar: g } = ctx;
    const signed = built.world.routes.find((r) => r.signed === true);
    if (!signed) return staleToken("medium").build(ctx);
    const a = built.template.asset;
    const { id } = claimTarget(ctx);
    const url = `${built.routes.asset(id)}/${SIGNED_VIEW.noun}`;
    const code = SIGNED_VIEW.field;
    // Nonces only go up within a session: the storyline position is above every earlier one.
    const nonce = String(ctx.position);
    const gb = new GoldenBuilder(built.world, ctx.position);
    gb.readSpec();
    gb.raw({
      op: "execute",
      request: {
        method: "GET",
        url,
        headers: { [SIGNATURE_HEADERS.keyId]: "{{client_id}}", [SIGNATURE_HEADERS.nonce]: nonce },
        sign: { secret: "{{client_secret}}" },
      },
      capture: { [gb.b("code")]: code },
    });
    const golden = gb.answer({ [code]: "code" });
    const story = [
      g.opener(),
      `${g.brokenCall("GET", url)}${g.gotError(401, "missing_signature", "this route takes signed requests")}`,
      g.pick([
        `It sent the same bearer token as every other job; the client credentials are in the vault.`,
        `The job authenticates like the others, with a bearer token; \`client_id\` and \`client_secret\` are in the vault.`,
      ]),
      `Our signer's nonce counter for this job stands at ${nonce}.`,
    ];
    const requirements: Requirement[] = [
      {
        kind: "value_flow",
        id: "signed_read",
        sentence: g.pick([
          `Sign the read as the API documents it and get ${id}'s attestation.`,
          `Get the attestation read of ${id} through with a properly signed request.`,
        ]),
        brief: `Read ${id}'s attestation with a signed request.`,
        predicates: ["attestation_from_signed_read"],
      },
      { ...reportRequirement(g, [code]), brief: `Report ${id}'s \`${code}\`.` },
    ];
    return subtask(ctx, this.id, {
      story,
      requirements,
      brief: [
        `A bearer-token read of ${url} gets 401 ${g.code("missing_signature")}; the signer's nonce counter stands at ${nonce}.`,
        ...requirements,
      ],
      golden,
      builder: gb,
      answer: [
        field(
          code,
          { $canary: `${a.plural}:${code}`, format: "AT-{code}" },
          `The attestation code ${url} serves to a signed request.`,
        ),
      ],
      g1: [
        flowToAnswer(
          "attestation_from_signed_read",
          url,
          200,
          code,
          code,
          "The attestation code must come from a signed read that succeeded.",
        ),
      ],
      probes: [{ method: "GET", url, token: "fresh", status: 401, error: "missing_signature" }],
      // The counter the ticket states is the world's: the key's last nonce is the one before it.
      premises: [{ kind: "nonce_counter", url, stands_at: Number(nonce) }],
    });
  },
};

export const AUTH_TEMPLATES: readonly SubtaskTemplate[] = [
  staleToken("easy"),
  staleToken("medium"),
  signedRead,
  clockExpiry("medium"),
  missingScope("medium"),
  clockExpiry("hard"),
  missingScope("hard"),
  refreshRenewal,
];
