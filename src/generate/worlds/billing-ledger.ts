import type { WorldTemplate } from "../world-template.js";

/** Tallyhouse Billing API: Subscription billing for a B2B SaaS: customer accounts, their payment mandates, and credit notes. */
export const BILLING_LEDGER: WorldTemplate = {
  id: "billing-ledger",
  title: "Tallyhouse Billing API",
  description:
    "Subscription billing for a B2B SaaS: customer accounts, their payment mandates, and credit notes.",
  port: 9007,
  base: "/billing/v3",
  deprecatedBase: "/billing/v2",
  lookalike: { segment: "reseller", audience: "reseller portals" },
  tokenPath: "/billing/oauth2/token",
  tokenPrefix: "th_",
  ttl: 5,
  updateMethod: "PATCH",
  pagination: { style: "page", pageSize: 16 },
  reporters: ["the collections lead", "Priya in finance ops", "the revenue accountant", "support tier 2"],
  systems: ["the dunning job", "the invoice renderer", "the CRM sync", "the month-end close script"],
  asset: {
    plural: "accounts",
    noun: "account",
    idField: "account_no",
    idPattern: "AC########",
    nameField: "company",
    names: [
      "Brightwell Ltd",
      "Oakum & Sons",
      "Pellucid AB",
      "Northgate GmbH",
      "Quillon SA",
      "Harrow Digital",
    ],
    canaryFields: [
      { name: "mandate_ref", description: "Reference of the active payment mandate", format: "MD-{code}" },
      { name: "tax_id_token", description: "Tokenised tax id on file", format: "TX-{code}" },
    ],
    enumField: {
      name: "plan",
      description: "Subscription plan",
      values: ["starter", "growth", "enterprise"],
    },
    numberField: { name: "balance_eur", description: "Open balance in EUR", min: 0, max: 9000 },
    linkField: { name: "pending_credit_note", description: "The credit note awaiting settlement" },
  },
  work: {
    plural: "credit-notes",
    noun: "credit note",
    idField: "credit_note_id",
    idTemplate: "CN-{canary}",
    levelField: { name: "reason", values: ["goodwill", "billing-error", "downgrade"] },
    copyField: "mandate_ref",
    statusField: "status",
    initialStatus: "awaiting-approval",
    nextStatuses: ["approved", "settled"],
    noteField: "memo",
  },
  errors: { shape: "plain", code_case: "pascal", message_template: "{code}: {message}" },
};
