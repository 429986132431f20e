import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Rng } from "../../src/bank/rng.js";
import type { Task } from "../../src/bank/task-schema.js";
import type { AgentToolCall, StepResult, TrialSession } from "../../src/trial/agent.js";
import { playGolden } from "../../src/trial/play-golden.js";

/** Fault kinds the fake server injects, each at its own rate per request. */
export interface FaultRates {
  rate_limit?: number;
  server_error?: number;
  timeout?: number;
  malformed_tool_call?: number;
  context_length?: number;
  /** A 200 whose body is not JSON (a proxy's HTML error page). */
  not_json?: number;
  /** A 200 with an empty `choices` array. */
  no_choices?: number;
  /** A 200 whose body stops half-way: the connection closes before Content-Length bytes. */
  cut_body?: number;
}

/** Every fault kind the fake server knows, in the order `pickFault` rolls them. */
export const FAULT_KINDS = [
  "rate_limit",
  "server_error",
  "timeout",
  "malformed_tool_call",
  "context_length",
  "not_json",
  "no_choices",
  "cut_body",
] as const satisfies ReadonlyArray<keyof FaultRates>;

/**
 * One call in five a fault, spread over every kind: 429, 5xx, a hanging call, a malformed tool call,
 * a context error, a 200 that is not JSON, a 200 without choices, a cut body.
 */
export const ONE_IN_FIVE_FAULTS: Required<FaultRates> = {
  rate_limit: 0.03,
  server_error: 0.03,
  timeout: 0.02,
  malformed_tool_call: 0.03,
  context_length: 0.01,
  not_json: 0.03,
  no_choices: 0.03,
  cut_body: 0.02,
};

export interface FakeServerOptions {
  tasks: readonly Task[];
  faults?: FaultRates;
  seed?: number;
  /** Required `Authorization: Bearer …`; error bodies echo it back to tempt a leak. */
  apiKey?: string;
  /** Delay before every answer. */
  latencyMs?: number;
}

export interface FakeServer {
  baseUrl: string;
  injected: Record<keyof FaultRates, number>;
  /**
   * Faults whose answer was written out in full to an open connection. Under heavy load a client
   * may time a call out before its fault is answered; the fault is then injected but never seen.
   */
  delivered: Record<keyof FaultRates, number>;
  requests: number;
  close(): Promise<void>;
}

interface OpenAiMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

class Captured extends Error {}

/**
 * A fake OpenAI-compatible chat-completions server (node:http on 127.0.0.1, port 0) that plays the
 * golden solution of whichever task the conversation's ticket names: the next action is computed
 * from the conversation so far by replaying the golden steps against the tool results the client
 * sent back. Turns the server spoiled on purpose (malformed tool calls) are skipped on replay.
 */
export async function startFakeOpenAiServer(options: FakeServerOptions): Promise<FakeServer> {
  const byTicket = new Map(options.tasks.map((t) => [t.ticket, t]));
  const random = Rng.fromSeed(options.seed ?? 1);
  const rng = () => random.int(0, 999_999) / 1_000_000;
  const injected = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<keyof FaultRates, number>;
  const delivered = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<keyof FaultRates, number>;
  const hanging = new Set<ServerResponse>();
  const state = { requests: 0 };

  const pickFault = (): keyof FaultRates | null => {
    const roll = rng();
    let acc = 0;
    for (const kind of FAULT_KINDS) {
      acc += options.faults?.[kind] ?? 0;
      if (roll < acc) return kind;
    }
    return null;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    state.requests++;
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
    };
    const auth = req.headers.authorization ?? "";
    if (options.apiKey && auth !== `Bearer ${options.apiKey}`) {
      return json(401, { error: { message: `bad key: ${auth}`, type: "auth" } });
    }
    if (req.url !== "/v1/chat/completions") return json(404, { error: { message: "not found" } });
    const request = JSON.parse(body) as { model: string; messages: OpenAiMessage[] };
    const fault = pickFault();
    if (fault) {
      injected[fault]++;
      res.on("finish", () => delivered[fault]++);
    }
    switch (fault) {
      case "rate_limit":
        return json(
          429,
          { error: { message: "Rate limit reached", type: "rate_limit" } },
          { "retry-after": "0", "retry-after-ms": "15" },
        );
      case "server_error":
        return json(500, {
          error: { message: `upstream failed (request had ${auth})`, type: "server_error" },
        });
      case "timeout":
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      case "context_length":
        return json(400, {
          error: {
            message:
              "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens.",
            type: "invalid_request_error",
            code: "context_length_exceeded",
          },
        });
      case "not_json":
        res.writeHead(200, { "content-type": "text/html" });
        return res.end("<html><body>502 Bad Gateway</body></html>");
      case "no_choices":
        return json(200, {
          id: `chatcmpl-${state.requests}`,
          object: "chat.completion",
          created: 1_700_000_000,
          model: request.model,
          choices: [],
        });
      case "cut_body": {
        const whole = JSON.stringify({ id: `chatcmpl-${state.requests}`, choices: [{ index: 0 }] });
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": String(whole.length * 2),
        });
        res.write(whole.slice(0, 20));
        res.socket?.destroy();
        return;
      }
      default:
        break;
    }
    const ticket = request.messages.find((m) => m.role === "user")?.content ?? "";
    const task = byTicket.get(ticket);
    if (!task) return json(400, { error: { message: "unknown ticket" } });
    const next = await nextGoldenAction(task, request.messages);
    const promptTokens = Math.ceil(body.length / 4);
    const id = `call_${state.requests}`;
    const message =
      next.type === "finish"
        ? { role: "assistant", content: next.text }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id,
                type: "function",
                function: {
                  name: next.call.name,
                  arguments:
                    fault === "malformed_tool_call"
                      ? '{"entity_ref": {"kind": '
                      : JSON.stringify(next.call.arguments),
                },
              },
            ],
          };
    return json(200, {
      id: `chatcmpl-${state.requests}`,
      object: "chat.completion",
      created: 1_700_000_000,
      model: request.model,
      choices: [{ index: 0, message, finish_reason: next.type === "finish" ? "stop" : "tool_calls" }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
    });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake server bug: ${(e as Error).message}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    injected,
    delivered,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The golden's next move given the conversation so far (tool results as the client sent them). */
export async function nextGoldenAction(
  task: Task,
  messages: readonly OpenAiMessage[],
): Promise<{ type: "call"; call: AgentToolCall } | { type: "finish"; text: string }> {
  const results = new Map(
    messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content ?? ""]),
  );
  const history: string[] = [];
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) {
      let args: unknown;
      try {
        args = JSON.parse(c.function.arguments);
      } catch {
        args = undefined;
      }
      // A spoiled turn (malformed arguments) is not part of the golden's history.
      if (args === null || typeof args !== "object") continue;
      history.push(results.get(c.id) ?? "");
    }
  }
  let captured: { type: "call"; call: AgentToolCall } | { type: "finish"; text: string } | null = null;
  let index = 0;
  const session: TrialSession = {
    systemPrompt: "",
    ticket: task.ticket,
    tools: [],
    signal: new AbortController().signal,
    get ended() {
      return captured !== null;
    },
    async step(turn): Promise<StepResult> {
      if (index < history.length) {
        const content = history[index++] as string;
        return { results: [{ ok: !content.startsWith("error"), content }], stopped: null };
      }
      captured = { type: "call", call: turn.toolCalls[0] as AgentToolCall };
      throw new Captured();
    },
    finish(text) {
      captured = { type: "finish", text };
    },
    addUsage() {},
    abort() {},
  };
  try {
    await playGolden(task.golden, session, { versioning: task.versioning });
  } catch (e) {
    if (!(e instanceof Captured)) throw e;
  }
  return captured ?? { type: "finish", text: "" };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
