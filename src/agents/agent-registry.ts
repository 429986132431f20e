import { z } from "zod";
import { mcpAgentFactory } from "../mcp/mcp-external-agent.js";
import type { AgentFactory } from "../trial/agent.js";
import { baselineAgentFactory } from "./baseline-agent.js";
import { loadAgentModule } from "./load-agent-module.js";
import { DEFAULT_MODEL_SETTINGS, modelAgentFactory } from "./model-agent.js";
import type { ModelCallControl } from "./model-call-retry.js";
import { createModel, describeModel } from "./providers.js";
import { SCRIPTED_AGENTS } from "./scripted-agents.js";

/**
 * How an agent of a run was made: what the run manifest pins per agent (never a key) and what a
 * queue job carries to the worker that rebuilds it. The registry turns it back into an `AgentFactory`.
 */
export const AgentSettingsSchema = z.looseObject({
  kind: z.enum(["model", "scripted", "module", "mcp"]),
  /** `openai/gpt-5-mini` for models. */
  model_api: z.string().optional(),
  /** Without credentials or query. */
  base_url: z.string().nullable().optional(),
  temperature: z.number().optional(),
  max_output_tokens: z.number().optional(),
  /** For `--agent ./my-agent.js`: the module path as given. */
  module: z.string().optional(),
  /**
   * For `--agent mcp:"<command>"`: the command template as given (`{url}`, `{ticket_file}`,
   * `{ticket}`). Pass keys to the agent through its environment, not in the template.
   */
  command: z.string().optional(),
  /** For `apiflow mcp`: how the one trial was served. */
  transport: z.enum(["stdio", "http"]).optional(),
});
export type AgentSettings = z.infer<typeof AgentSettingsSchema>;

/** Agents known by name (`--agent golden`): the answer key, the blank exam and the scripted baseline. */
export const NAMED_AGENTS: Readonly<Record<string, AgentFactory>> = {
  ...SCRIPTED_AGENTS,
  baseline: baselineAgentFactory,
};

/** An agent as asked for: its settings, and for scripted agents (and checked modules) its name. */
export interface AgentRequest {
  settings: AgentSettings;
  /** The scripted agent's name; for a module, the name its factory must have (a queue job's agent). */
  name?: string;
}

export interface AgentResolution {
  factory: AgentFactory;
  /** The settings as the run manifest pins them (a model's id and public base URL normalised). */
  settings: AgentSettings;
  /** Keys the agent holds: redacted from everything written. */
  secrets: string[];
  /** `provider/model` for models (they are priced); absent otherwise. */
  modelApi?: string;
}

export interface ResolveAgentContext {
  /** Module paths are resolved from here. */
  cwd: string;
  /** Where model keys come from: this machine's environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** A model's base URL; overrides the one its settings name (each machine may have its own server). */
  baseUrl?: string;
  /** Retries, AIMD gate and events of a model agent's calls, asked for once the model is built. */
  calls?: (modelApi: string) => ModelCallControl;
  /** Describe models without building them (no key read; the model refuses every call): `run --queue`. */
  describeOnly?: boolean;
  /** Why an external MCP agent cannot be run here (queue workers do not launch commands); absent: it can. */
  refuseMcp?: string;
}

export type AgentRegistryError = { code: "unknown_agent" | "agent_unavailable"; message: string };
type Result<T> = { success: true; data: T } | { success: false; error: AgentRegistryError };

const MODULE_PATH = /[/\\]|\.(m?js|c?js|m?ts|cts)$/;

/**
 * What `--agent NAME` asks for: `golden`, `blank`, `baseline`, `mcp:"<command>"` (an external MCP
 * agent launched per trial) or a module path (`./my-agent.js`). A model is asked for by its
 * `provider/model` id (`modelRequest`).
 *
 * @example agentRequest("golden") // { success: true, data: { name: "golden", settings: { kind: "scripted" } } }
 */
export function agentRequest(arg: string): Result<AgentRequest> {
  if (arg.startsWith("mcp:")) {
    const command = arg.slice("mcp:".length).trim();
    if (command === "")
      return unknown(
        '--agent mcp: needs a command, e.g. mcp:"my-agent --server {url} --ticket-file {ticket_file}"',
      );
    return { success: true, data: { settings: { kind: "mcp", command } } };
  }
  if (NAMED_AGENTS[arg]) return { success: true, data: { name: arg, settings: { kind: "scripted" } } };
  if (MODULE_PATH.test(arg)) return { success: true, data: { settings: { kind: "module", module: arg } } };
  return unknown(
    `unknown agent "${arg}"; known agents: ${Object.keys(NAMED_AGENTS).join(", ")} (or a module path like ./my-agent.js, or mcp:"<command>")`,
  );
}

/**
 * A model agent asked for by its `provider/model` id, with its sampling settings.
 *
 * @example modelRequest("openai/gpt-5-mini", { temperature: 0 }).settings.kind // "model"
 */
export function modelRequest(
  id: string,
  sampling: { temperature?: number; maxOutputTokens?: number } = {},
): AgentRequest {
  return {
    settings: {
      kind: "model",
      model_api: id,
      ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
      ...(sampling.maxOutputTokens !== undefined ? { max_output_tokens: sampling.maxOutputTokens } : {}),
    },
  };
}

/**
 * The one registry of agents: scripted agents by name, user modules, external MCP agents and models
 * (`provider/model`, built with this machine's keys) as `AgentFactory`s. `apiflow run`, the queue
 * worker and `apiflow verify --oracle-model` all resolve their agents here.
 *
 * @example const r = await resolveAgent(modelRequest("openai/gpt-5-mini"), { cwd, env: process.env });
 */
export async function resolveAgent(
  request: AgentRequest,
  context: ResolveAgentContext,
): Promise<Result<AgentResolution>> {
  const { settings, name } = request;
  const done = (factory: AgentFactory): Result<AgentResolution> => ({
    success: true,
    data: { factory, settings, secrets: [] },
  });
  switch (settings.kind) {
    case "scripted": {
      const named = name === undefined ? undefined : NAMED_AGENTS[name];
      return named ? done(named) : unavailable(`no scripted agent "${name ?? ""}"`);
    }
    case "mcp":
      if (context.refuseMcp !== undefined) return unavailable(context.refuseMcp);
      if (!settings.command) return unavailable(`agent ${name ?? "mcp"} names no command`);
      // Named by `run --agent-name` when given, else by a digest of the command.
      return done(mcpAgentFactory(settings.command, name !== undefined ? { name } : {}));
    case "module": {
      if (!settings.module) return unavailable(`agent ${name ?? ""} names no module`);
      const loaded = await loadAgentModule(settings.module, context.cwd);
      if (!loaded.success) return unavailable(loaded.error.message);
      if (name !== undefined && loaded.data.name !== name)
        return unavailable(`${settings.module} is agent "${loaded.data.name}" here, not "${name}"`);
      return done(loaded.data);
    }
    case "model":
      return resolveModel(settings, name, context);
  }
}

function resolveModel(
  settings: AgentSettings,
  name: string | undefined,
  context: ResolveAgentContext,
): Result<AgentResolution> {
  const modelApi = settings.model_api;
  if (!modelApi) return unavailable(`model agent ${name ?? ""} names no model`);
  const baseUrl = context.baseUrl ?? settings.base_url ?? undefined;
  const where = { env: context.env, ...(baseUrl ? { baseUrl } : {}) };
  const made = context.describeOnly ? describeModel(modelApi, where) : createModel(modelApi, where);
  if (!made.success) return unavailable(made.error.message);
  const { spec, model, publicBaseUrl } = made.data;
  const { kind: _kind, model_api: _id, base_url: _url, ...sampling } = settings;
  const factory = modelAgentFactory({
    name: spec.slug,
    model,
    settings: {
      ...DEFAULT_MODEL_SETTINGS,
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.max_output_tokens !== undefined ? { maxOutputTokens: settings.max_output_tokens } : {}),
    },
    ...(context.calls ? { calls: context.calls(modelApi) } : {}),
  });
  return {
    success: true,
    data: {
      factory,
      settings: { kind: "model", model_api: spec.id, base_url: publicBaseUrl, ...sampling },
      secrets: [...made.data.secrets],
      modelApi: spec.id,
    },
  };
}

function unknown(message: string): Result<never> {
  return { success: false, error: { code: "unknown_agent", message } };
}

function unavailable(message: string): Result<never> {
  return { success: false, error: { code: "agent_unavailable", message } };
}
