import type { G1Predicate, RecordRef, Requirement } from "../../bank/task-schema.js";
import type { SymRecord } from "../build-world.js";
import { GoldenBuilder } from "../golden-builder.js";
import { re } from "../story-state.js";
import type { TemplateContext } from "../subtask-template.js";
import { cap } from "../ticket-grammar.js";
import { LEDGER_RESOURCE } from "../world-builders/archetype-routes.js";
import { field, reportRequirement, subtask } from "./common.js";

/** The entry kinds a ledger accepts (see `archetypeResources`). */
const KINDS = ["credit", "debit", "adjustment"] as const;

const cents = (n: number) => Math.round(n * 100) / 100;

/**
 * An asset whose ledger holds seeded entries and that no earlier position named, or null when
 * the world has no ledger (not a `ledger` archetype) or every such asset is taken.
 */
function ledgerTarget(ctx: TemplateContext): { asset: SymRecord; id: string; opening: number } | null {
  const { built, state, rng } = ctx;
  const entries = built.world.resources[LEDGER_RESOURCE]?.records;
  if (built.world.archetype !== "ledger" || !entries) return null;
  const idField = built.template.asset.idField;
  const free = state.assets.filter((r) => !state.isUsed(r) && entries.some((e) => e[idField] === r[idField]));
  if (free.length === 0) return null;
  const asset = rng.pick(free);
  state.markUsed(asset);
  const id = state.assetId(asset);
  const opening = cents(
    entries.filter((e) => e[idField] === id).reduce((n, e) => n + Number(e.amount ?? 0), 0),
  );
  return { asset, id, opening };
}

/**
 * Statefulness on a `ledger` world (issue 16: a task that needs the world's archetype): note the
 * balance an asset's append-only ledger derives, append an entry, and read the balance again —
 * the write changes what the first read showed, so an agent acting on that first read reports a
 * stale balance. The new entry's id is kept in a variable. The balance exists only on the ledger
 * route (`GET <asset>/{id}/entries`, derived from the entries), so no flat route answers it.
 *
 * Returns null when the world is not a ledger (the caller builds its usual task).
 */
export function ledgerBalance(ctx: TemplateContext, template: string) {
  const target = ledgerTarget(ctx);
  if (!target) return null;
  const { built, state, grammar: g, rng } = ctx;
  const a = built.template.asset;
  const { id, opening } = target;
  const kind = g.pick(KINDS);
  // Never a whole number and never zero, so the balance after differs from the one before.
  const magnitude = rng.int(1001, 48999);
  const amount = cents(
    ((magnitude % 100 === 0 ? magnitude + 7 : magnitude) / 100) * (kind === "debit" ? -1 : 1),
  );
  const balance = cents(opening + amount);
  const ledger = `${built.routes.asset(id)}/entries`;
  const ledgerRe = `^${re(ledger)}$`;
  const variable = state.variableFor("ledger_entry", target.asset);
  const entry: RecordRef = {
    $record: {
      resource: LEDGER_RESOURCE,
      where: { [a.idField]: id, kind, amount },
      role: `the ${kind} entry of ${amount} appended to ${id}'s ledger`,
    },
    field: "entry_id",
  };

  const gb = new GoldenBuilder(built.world, ctx.position);
  gb.call("GET", ledger, { opening: "balance" });
  gb.call("POST", ledger, { eid: "entry_id" }, { kind, amount });
  gb.store(variable, "eid", "local");
  gb.call("GET", ledger, { balance: "balance" });
  const golden = gb.answer({ opening_balance: "opening", balance: "balance", entry_id: "eid" });

  const g1: G1Predicate[] = [
    {
      kind: "call",
      id: "entry_appended",
      explain: `A ${kind} entry of ${amount} must be appended to ${id}'s own ledger.`,
      method: "POST",
      url_pattern: ledgerRe,
      target: id,
      status: 201,
      body_has_keys: [],
      sent: { kind, amount },
    },
    {
      kind: "data_flow",
      id: "opening_read",
      explain: `The opening balance must be the one ${id}'s ledger derived before the entry.`,
      from_response_url_pattern: ledgerRe,
      from_status: 200,
      from_body_key: "balance",
      answer_field: "opening_balance",
      must_be_stored: false,
      used_in_request_url_pattern: null,
    },
    {
      kind: "data_flow",
      id: "balance_reread",
      explain: `The balance must be read from ${id}'s ledger after the entry (a read from before shows the old one).`,
      from_response_url_pattern: ledgerRe,
      from_status: 200,
      from_body_key: "balance",
      answer_field: "balance",
      must_be_stored: false,
      used_in_request_url_pattern: null,
    },
    {
      kind: "data_flow",
      id: "entry_id_stored",
      explain: "The minted entry id must be stored in a variable.",
      from_response_url_pattern: ledgerRe,
      from_status: 201,
      from_body_key: "entry_id",
      answer_field: "entry_id",
      must_be_stored: true,
      used_in_request_url_pattern: null,
    },
    {
      kind: "workspace_value",
      id: "entry_in_variable",
      explain: `Later work finds the entry in local variable ${variable}.`,
      name: variable,
      scope: "local",
      value: entry,
    },
  ];

  const story = [
    g.opener(),
    g.pick([
      `${cap(g.system())} posts corrections to ${id}'s ledger and then shows the balance it had read first, so the screen is one entry behind.`,
      `Yesterday a ${kind} for ${id} was posted by hand; the dashboard went on showing the balance from its earlier read, and the entry id was lost.`,
    ]),
    `Ledger entries cannot be edited once posted, and the API derives each ledger's \`balance\` from its entries.`,
  ];
  const appended: Requirement = {
    kind: "value_written",
    id: "entry_appended",
    sentence: `Append a \`${kind}\` entry of \`${amount}\` to ${id}'s ledger.`,
    brief: `Append a \`${kind}\` entry of \`${amount}\` to ${id}'s ledger.`,
    predicates: ["entry_appended"],
    call: { method: "POST", url_pattern: ledgerRe, status: 201, target: id },
    key: "amount",
    value: amount,
    alternatives: [cents(amount + 10)],
  };
  const balances: Requirement = {
    kind: "value_flow",
    id: "balances_read",
    sentence: `Note ${id}'s balance as the ledger shows it first (\`opening_balance\`), then the balance the ledger derives once your entry is in (\`balance\`).`,
    brief: `Note ${id}'s \`opening_balance\`, then its \`balance\` with the entry in.`,
    predicates: ["opening_read", "balance_reread"],
  };
  const kept: Requirement = {
    kind: "value_flow",
    id: "entry_kept",
    sentence: `Keep the new entry's id in the local variable \`${variable}\`.`,
    brief: `Keep the entry's id in local \`${variable}\`.`,
    predicates: ["entry_id_stored", "entry_in_variable"],
  };
  const fields = ["opening_balance", "balance", "entry_id"];
  const report = reportRequirement(g, fields);
  return subtask(ctx, template, {
    ticket: [...story, appended, balances, kept, report],
    brief: [appended, balances, kept, report],
    golden,
    builder: gb,
    answer: [
      field("opening_balance", opening, `${id}'s balance before the entry, from its ledger.`),
      field("balance", balance, `${id}'s balance with the entry in, from its ledger read after it.`),
      field("entry_id", entry, "The id the append minted."),
    ],
    g1,
    probes: [],
  });
}
