import { readFileSync } from "node:fs";
import { z } from "zod";
import type { TrialTokens } from "./trial-record.js";

/** US dollars per million tokens of one model. */
export const ModelPriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_read: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * A versioned price table keyed by model id (`provider/model`) or slug. Users override it with a
 * file of the same shape (`--price-table FILE`); the version goes into the run manifest, so costs
 * of runs priced by different tables are never silently mixed.
 */
export const PriceTableSchema = z.strictObject({
  version: z.string().min(1),
  currency: z.literal("USD").default("USD"),
  models: z.record(z.string(), ModelPriceSchema),
});
export type PriceTable = z.infer<typeof PriceTableSchema>;

/** List prices we ship; a run on an unlisted model records a null cost, never a guess. */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  version: "2026-08-builtin-1",
  currency: "USD",
  models: {
    "openai/gpt-5": { input: 1.25, output: 10, cache_read: 0.125 },
    "openai/gpt-5-mini": { input: 0.25, output: 2, cache_read: 0.025 },
    "openai/gpt-5-nano": { input: 0.05, output: 0.4, cache_read: 0.005 },
    "openai/gpt-4.1": { input: 2, output: 8, cache_read: 0.5 },
    "openai/gpt-4.1-mini": { input: 0.4, output: 1.6, cache_read: 0.1 },
    "anthropic/claude-sonnet-4-6": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    "anthropic/claude-sonnet-4-5": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    "anthropic/claude-opus-4-1": { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
    "anthropic/claude-haiku-4-5": { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
    "google/gemini-2.5-pro": { input: 1.25, output: 10, cache_read: 0.31 },
    "google/gemini-2.5-flash": { input: 0.3, output: 2.5, cache_read: 0.075 },
  },
};

/**
 * Read a user's price table file. A mistake is a one-line error.
 *
 * @example const t = loadPriceTable("prices.json"); if (!t.success) console.error(t.error.message);
 */
export function loadPriceTable(
  path: string,
):
  | { success: true; data: PriceTable }
  | { success: false; error: { code: "bad_price_table"; message: string } } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    return {
      success: false,
      error: { code: "bad_price_table", message: `${path}: ${(e as Error).message}` },
    };
  }
  const parsed = PriceTableSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      success: false,
      error: {
        code: "bad_price_table",
        message: `${path}: ${issue ? `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}` : "invalid"}`,
      },
    };
  }
  return { success: true, data: parsed.data };
}

/**
 * The price of a trial's tokens, or null when the model is not in the table. Scripted agents cost 0.
 *
 * @example priceTokens(DEFAULT_PRICE_TABLE, "openai/gpt-5-mini", { input: 1e6, output: 0, cache_read: 0, cache_write: 0, total: 1e6 }) // 0.25
 */
export function priceTokens(table: PriceTable, model: string | null, tokens: TrialTokens): number | null {
  if (model === null) return 0;
  const slug = model.slice(model.indexOf("/") + 1);
  const price = table.models[model] ?? table.models[slug];
  if (!price) return null;
  return (
    (tokens.input * price.input +
      tokens.output * price.output +
      tokens.cache_read * (price.cache_read ?? price.input) +
      tokens.cache_write * (price.cache_write ?? price.input)) /
    1e6
  );
}
