import type { Agent, AgentFactory, TrialSession } from "../trial/agent.js";
import { routePathPattern } from "../world/route-path.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Operation {
  method: string;
  path: string;
  deprecated: boolean;
}

/**
 * The scripted floor every report shows. It knows nothing of the golden solution or the grader;
 * it does what a diligent but unimaginative engineer would: inventory the workspace, read the
 * spec, mint a token from the vault's client credentials, GET the routes the ticket points at
 * (through the spec's current, non-deprecated routes), follow the hints error bodies give, and
 * answer each field the ticket names with the last value of that name it saw.
 *
 * @example await runTrial({ bank, task, agent: baselineAgentFactory, epoch: 1 });
 */
export const baselineAgent: Agent = {
  name: "baseline",
  async attempt(session) {
    await playBaseline(session);
    if (!session.ended) session.finish("I could not complete the task.");
  },
};

export const baselineAgentFactory: AgentFactory = { name: "baseline", forTask: () => baselineAgent };

async function playBaseline(session: TrialSession): Promise<void> {
  const seen: Json[] = [];
  const call = async (name: string, args: Record<string, unknown>): Promise<Json | null> => {
    const step = await session.step({ toolCalls: [{ name, arguments: args }] });
    const r = step.results[0];
    if (step.stopped || !r) return null;
    try {
      return JSON.parse(r.content) as Json;
    } catch {
      return r.content;
    }
  };

  const inventory = await call("search", { query: "" });
  if (session.ended) return;
  const vault = new Set<string>();
  if (Array.isArray(inventory)) {
    for (const e of inventory) {
      if (e && typeof e === "object" && !Array.isArray(e) && e.kind === "variable" && e.scope === "vault")
        vault.add(String(e.id));
    }
  }
  const spec = await call("read", { entity_ref: { kind: "spec", id: "openapi" } });
  if (session.ended) return;
  const ops = operationsOf(spec);

  let token: string | null = null;
  // The spec says how a credential travels: an API-key header, else a bearer token.
  const apiKey = JSON.stringify(spec).includes('"type":"apiKey"');
  let refreshVar = [...vault].find((v) => /refresh_?token/i.test(v));
  let refreshToken: string | null = null;
  const mint = async (): Promise<void> => {
    const tokenOp = ops.find((o) => o.method === "post" && /token|api-keys|auth$/i.test(o.path));
    const id = [...vault].find((v) => /client_?id/i.test(v));
    const secret = [...vault].find((v) => /client_?secret/i.test(v));
    const refresh = refreshToken ?? (refreshVar ? `{{${refreshVar}}}` : null);
    if (!tokenOp || (!(id && secret) && !refresh)) return;
    const sent = await call("execute", {
      request: {
        protocol: "rest",
        method: "POST",
        url: tokenOp.path,
        headers: { "Content-Type": "application/json" },
        body:
          id && secret
            ? { grant_type: "client_credentials", client_id: `{{${id}}}`, client_secret: `{{${secret}}}` }
            : { grant_type: "refresh_token", refresh_token: refresh },
      },
    });
    const found = valuesNamed(bodyOf(sent), apiKey ? "api_key" : "access_token");
    if (typeof found[0] === "string") token = found[0];
    const next = valuesNamed(bodyOf(sent), "refresh_token");
    if (typeof next[0] === "string") {
      refreshToken = next[0];
      refreshVar = undefined;
    }
  };
  await mint();
  if (session.ended) return;

  const get = async (path: string, depth: number): Promise<void> => {
    const sent = await call("execute", {
      request: {
        protocol: "rest",
        method: "GET",
        url: path,
        ...(token ? { headers: apiKey ? { "X-Api-Key": token } : { Authorization: `Bearer ${token}` } } : {}),
      },
    });
    if (session.ended || !sent || typeof sent !== "object" || Array.isArray(sent)) return;
    const status = Number(sent.status);
    const body = bodyOf(sent);
    if (status < 400) {
      seen.push(body);
      return;
    }
    if (depth > 0) return;
    // Follow what the error says: a stale token means mint again; a hint naming a route means try it.
    const hint = JSON.stringify(body);
    if (status === 401) {
      await mint();
      if (!session.ended) await get(path, depth + 1);
      return;
    }
    const route = /\/v\d+\/[\w\-/{}]+/.exec(hint)?.[0];
    if (route && route !== path) await get(route, depth + 1);
  };

  for (const path of candidatePaths(session.ticket, ops)) {
    if (session.ended) return;
    await get(path, 0);
  }
  if (session.ended) return;

  const card: Record<string, Json> = {};
  for (const field of answerFields(session.ticket)) {
    const values = seen.flatMap((b) => valuesNamed(b, field));
    card[field] = values.length ? (values[values.length - 1] as Json) : null;
  }
  session.finish(`Here is what I found.\n\n\`\`\`json\n${JSON.stringify(card, null, 2)}\n\`\`\``);
}

/** The operations a spec read returns, from `{content: {document: {paths}}}`. */
function operationsOf(specRead: Json | null): Operation[] {
  const doc = (specRead as { content?: { document?: { paths?: Record<string, Record<string, Json>> } } })
    ?.content?.document;
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc?.paths ?? {})) {
    for (const [method, op] of Object.entries(methods ?? {})) {
      const deprecated = Boolean((op as { deprecated?: boolean } | null)?.deprecated);
      ops.push({ method: method.toLowerCase(), path, deprecated });
    }
  }
  return ops;
}

/**
 * Concrete GET paths worth trying: the current (non-deprecated) spec routes whose parameters can be
 * filled with ids quoted in the ticket, and the GET paths the ticket quotes that the spec does not
 * mark deprecated.
 */
function candidatePaths(ticket: string, ops: readonly Operation[]): string[] {
  const ids = [...new Set(ticket.match(/\b[A-Z]{1,4}-\d{2,}\b/g) ?? [])];
  const out: string[] = [];
  const deprecated = ops.filter((o) => o.deprecated).map((o) => routePathPattern(o.path).re);
  for (const [, path] of ticket.matchAll(/GET\s+(\/[\w\-/.{}]+)/g)) {
    if (path && !deprecated.some((re) => re.test(path))) out.push(path);
  }
  for (const op of ops) {
    if (op.method !== "get" || op.deprecated) continue;
    const params = op.path.match(/\{[^}]+\}/g) ?? [];
    if (params.length !== 1) continue;
    const [prefix] = op.path.split("{");
    const noun = (prefix ?? "").split("/").filter(Boolean).pop() ?? "";
    for (const id of ids) {
      // Only ids the ticket mentions next to this resource's noun (vessel V-204, order …).
      const stem = noun.replace(/s$/, "").split("-")[0] ?? noun;
      if (new RegExp(`${stem}[^.]{0,40}${id}|${id}[^.]{0,40}${stem}`, "i").test(ticket) || ids.length === 1)
        out.push(op.path.replace(/\{[^}]+\}/, id));
    }
  }
  return [...new Set(out)];
}

/** The field names after "with exactly these field(s):" in the ticket. */
function answerFields(ticket: string): string[] {
  const tail = /exactly these field\(s\):([^\n]*)/i.exec(ticket)?.[1] ?? "";
  return [...tail.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
}

function bodyOf(executed: Json | null): Json {
  if (!executed || typeof executed !== "object" || Array.isArray(executed)) return null;
  const preview = executed.body_preview;
  if (typeof preview !== "string") return null;
  try {
    return JSON.parse(preview) as Json;
  } catch {
    return preview;
  }
}

/** Every value under a key of this name, depth first. */
function valuesNamed(value: Json, name: string): Json[] {
  const out: Json[] = [];
  const walk = (v: Json) => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === name && (x === null || typeof x !== "object")) out.push(x);
        walk(x);
      }
    }
  };
  walk(value);
  return out;
}
