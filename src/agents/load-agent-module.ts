import { existsSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Agent, AgentFactory } from "../trial/agent.js";

export type LoadAgentError = { code: "agent_module"; message: string };

/**
 * Load a user's agent module for `--agent ./my-agent.js`. The module's default export (or its
 * `agent` / `factory` export) is an `Agent` (`{ name, attempt(session) }`) or an `AgentFactory`
 * (`{ name, forTask(task) }`).
 *
 * `.js`/`.mjs` modules load with Node's own `import()`. `.ts`/`.mts` modules load through `tsx`
 * when it is installed next to apiflow (it is a development dependency: in a plain `npm install
 * apiflow-bench` compile the agent to JavaScript first).
 *
 * @example const res = await loadAgentModule("./my-agent.js", process.cwd()); if (res.success) agents.push(res.data);
 */
export async function loadAgentModule(
  spec: string,
  cwd: string,
): Promise<{ success: true; data: AgentFactory } | { success: false; error: LoadAgentError }> {
  const path = resolve(cwd, spec);
  const fail = (message: string) => ({
    success: false as const,
    error: { code: "agent_module" as const, message },
  });
  if (!existsSync(path)) return fail(`no agent module at ${spec}`);
  const ext = extname(path);
  let mod: Record<string, unknown>;
  try {
    if (ext === ".ts" || ext === ".mts" || ext === ".cts") {
      let tsImport: ((specifier: string, parent: string) => Promise<unknown>) | undefined;
      try {
        ({ tsImport } = (await import("tsx/esm/api")) as {
          tsImport: (specifier: string, parent: string) => Promise<unknown>;
        });
      } catch {
        return fail(`${spec} is TypeScript and tsx is not installed; compile it to .js or npm install tsx`);
      }
      mod = (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>;
    } else {
      mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    }
  } catch (e) {
    return fail(`${spec} failed to load: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
  const candidate = mod.default ?? mod.agent ?? mod.factory;
  const unwrapped =
    candidate && typeof candidate === "object" && "default" in candidate
      ? (candidate as { default: unknown }).default
      : candidate;
  if (isFactory(unwrapped)) return { success: true, data: unwrapped };
  if (isAgent(unwrapped)) {
    const agent = unwrapped;
    return { success: true, data: { name: agent.name, forTask: () => agent } };
  }
  return fail(
    `${spec} must export (default, agent or factory) an Agent {name, attempt(session)} or an AgentFactory {name, forTask(task)}`,
  );
}

function isAgent(v: unknown): v is Agent {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as Agent).name === "string" &&
    /^[A-Za-z0-9._-]+$/.test((v as Agent).name) &&
    typeof (v as Agent).attempt === "function"
  );
}

function isFactory(v: unknown): v is AgentFactory {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as AgentFactory).name === "string" &&
    /^[A-Za-z0-9._-]+$/.test((v as AgentFactory).name) &&
    typeof (v as AgentFactory).forTask === "function"
  );
}
