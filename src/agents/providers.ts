import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";

/**
 * The one place that knows model providers. Everything else sees a `LanguageModelV3` (the AI SDK's
 * narrow model interface), so the agent loop never imports a provider.
 */
export const PROVIDERS = {
  openai: { keyEnv: "OPENAI_API_KEY", keyRequired: true },
  anthropic: { keyEnv: "ANTHROPIC_API_KEY", keyRequired: true },
  google: { keyEnv: "GOOGLE_GENERATIVE_AI_API_KEY", keyRequired: true },
  // Local servers (vLLM, Ollama, llama.cpp, LiteLLM) often need no key; send one when it is set.
  "openai-compatible": { keyEnv: "OPENAI_COMPATIBLE_API_KEY", keyRequired: false },
} as const;
export type ProviderName = keyof typeof PROVIDERS;

/** A parsed `provider/model` id. `slug` names the model in the store and the transcripts folder. */
export interface ModelSpec {
  /** As the user wrote it: `anthropic/claude-sonnet-4-6`. */
  id: string;
  provider: ProviderName;
  model: string;
  /** `claude-sonnet-4-6`: the 1.0 transcript folder name. */
  slug: string;
}

export type ProviderError =
  | { code: "bad_model_id"; message: string }
  | { code: "unknown_provider"; message: string }
  | { code: "missing_key"; message: string }
  | { code: "missing_base_url"; message: string }
  | { code: "bad_base_url"; message: string };

type Result<T> = { success: true; data: T } | { success: false; error: ProviderError };

/**
 * Parse a model id `provider/model` (the model part may itself contain `/`).
 *
 * @example parseModelId("openai/gpt-5-mini") // { success: true, data: { provider: "openai", model: "gpt-5-mini", slug: "gpt-5-mini", … } }
 */
export function parseModelId(id: string): Result<ModelSpec> {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) {
    return {
      success: false,
      error: {
        code: "bad_model_id",
        message: `model id "${id}" must be provider/model, e.g. openai/gpt-5-mini or openai-compatible/llama3`,
      },
    };
  }
  const provider = id.slice(0, slash);
  const model = id.slice(slash + 1);
  if (!(provider in PROVIDERS)) {
    return {
      success: false,
      error: {
        code: "unknown_provider",
        message: `unknown provider "${provider}" in "${id}"; known: ${Object.keys(PROVIDERS).join(", ")}`,
      },
    };
  }
  return { success: true, data: { id, provider: provider as ProviderName, model, slug: modelSlug(model) } };
}

/** `meta-llama/Llama-3.1-8B` → `meta-llama-Llama-3.1-8B`: safe as a folder name and a store key. */
export function modelSlug(model: string): string {
  return model.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "model";
}

export interface CreateModelOptions {
  /** Where keys are read from (the CLI passes its io.env, never `process.env` directly). */
  env: Record<string, string | undefined>;
  /** Required for `openai-compatible/…`; optional for the others (a proxy). */
  baseUrl?: string;
  /** For tests: a fetch to route calls through. */
  fetch?: typeof globalThis.fetch;
}

export interface CreatedModel {
  spec: ModelSpec;
  model: LanguageModelV3;
  /** The key in use, so writers can redact it; never stored. */
  secrets: string[];
  /** The base URL without credentials or query, for the run manifest. */
  publicBaseUrl: string | null;
}

/**
 * Build the AI SDK model for a model id. A missing key is a one-line error naming the variable.
 *
 * @example
 * const made = createModel("openai-compatible/llama3", { env: process.env, baseUrl: "http://127.0.0.1:8000/v1" });
 * if (!made.success) console.error(made.error.message);
 */
export function createModel(id: string, options: CreateModelOptions): Result<CreatedModel> {
  const parsed = parseModelId(id);
  if (!parsed.success) return parsed;
  const spec = parsed.data;
  const info = PROVIDERS[spec.provider];
  const apiKey = options.env[info.keyEnv]?.trim() || undefined;
  if (info.keyRequired && !apiKey) {
    return {
      success: false,
      error: { code: "missing_key", message: `${id} needs an API key: set ${info.keyEnv}` },
    };
  }
  const where = checkBaseUrl(id, spec, options.baseUrl);
  if (!where.success) return where;
  const { publicBaseUrl } = where.data;
  const common = {
    ...(apiKey ? { apiKey } : {}),
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  let model: LanguageModelV3;
  switch (spec.provider) {
    case "openai":
      model = createOpenAI(common)(spec.model);
      break;
    case "anthropic":
      model = createAnthropic(common)(spec.model);
      break;
    case "google":
      model = createGoogleGenerativeAI(common)(spec.model);
      break;
    case "openai-compatible": {
      model = createOpenAICompatible({
        name: "openai-compatible",
        // checkBaseUrl refused openai-compatible without one.
        baseURL: options.baseUrl as string,
        includeUsage: true,
        ...(apiKey ? { apiKey } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }).chatModel(spec.model);
      break;
    }
  }
  return { success: true, data: { spec, model, secrets: apiKey ? [apiKey] : [], publicBaseUrl } };
}

/** The base URL's public form (no credentials, no query), or why it cannot be used. */
function checkBaseUrl(
  id: string,
  spec: ModelSpec,
  baseUrl: string | undefined,
): Result<{ publicBaseUrl: string | null }> {
  let publicBaseUrl: string | null = null;
  if (baseUrl !== undefined) {
    try {
      const u = new URL(baseUrl);
      publicBaseUrl = `${u.protocol}//${u.host}${u.pathname}`.replace(/\/$/, "");
    } catch {
      return {
        success: false,
        error: { code: "bad_base_url", message: `--base-url ${JSON.stringify(baseUrl)} is not a URL` },
      };
    }
  }
  if (spec.provider === "openai-compatible" && !baseUrl) {
    return {
      success: false,
      error: {
        code: "missing_base_url",
        message: `${id} needs --base-url (e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama)`,
      },
    };
  }
  return { success: true, data: { publicBaseUrl } };
}

/**
 * A model agent described, not built: what `createModel` returns for a coordinator that hands
 * trials to workers (`apiflow run --queue`), which build the model from the job's settings with
 * their own keys. The id and base URL are checked as `createModel` checks them, no key is read,
 * and the model refuses every call (the coordinator never runs a trial), so a key-less coordinator
 * can never call a provider with a key from elsewhere.
 *
 * @example
 * const d = describeModel("openai/gpt-5-mini", {}); // success without OPENAI_API_KEY
 * if (d.success) console.log(d.data.spec.slug, d.data.secrets); // "gpt-5-mini" []
 */
export function describeModel(
  id: string,
  options: Pick<CreateModelOptions, "baseUrl">,
): Result<CreatedModel> {
  const parsed = parseModelId(id);
  if (!parsed.success) return parsed;
  const spec = parsed.data;
  const where = checkBaseUrl(id, spec, options.baseUrl);
  if (!where.success) return where;
  const refuse = () =>
    Promise.reject(
      new Error(`${id} was only described here (apiflow run --queue): workers build and call it`),
    );
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: spec.provider,
    modelId: spec.model,
    supportedUrls: {},
    doGenerate: refuse,
    doStream: refuse,
  };
  return { success: true, data: { spec, model, secrets: [], publicBaseUrl: where.data.publicBaseUrl } };
}
