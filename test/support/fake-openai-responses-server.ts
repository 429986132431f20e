import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Task } from "../../src/bank/task-schema.js";
import { nextGoldenAction } from "./fake-openai-server.js";

/** A Responses-API input item as `@ai-sdk/openai` sends it (the fields the golden replay reads). */
interface ResponsesInputItem {
  type?: string;
  role?: string;
  content?: string | Array<{ type: string; text?: string }>;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
}

export interface FakeResponsesServer {
  /** `http://127.0.0.1:PORT/v1`, for `--base-url`. */
  baseUrl: string;
  /** Requests answered with 200 (so only those the key opened). */
  answered: number;
  close(): Promise<void>;
}

/**
 * A fake OpenAI Responses API (`POST /v1/responses`, what `openai/…` models call) on 127.0.0.1 that
 * plays the golden solution of the task its ticket names, like the chat-completions fake beside the
 * runner, and answers 401 to any other key than `apiKey`. For tests of a provider whose key is
 * required.
 */
export async function startFakeResponsesServer(options: {
  tasks: readonly Task[];
  apiKey: string;
}): Promise<FakeResponsesServer> {
  const byTicket = new Map(options.tasks.map((t) => [t.ticket, t]));
  const state = { answered: 0 };
  const server: Server = createServer((req, res) => {
    const json = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    readBody(req)
      .then(async (body) => {
        if (req.headers.authorization !== `Bearer ${options.apiKey}`)
          return json(401, { error: { message: "bad key", type: "auth", code: "invalid_api_key" } });
        if (req.url !== "/v1/responses")
          return json(404, { error: { message: "not found", type: "x", code: "x" } });
        const request = JSON.parse(body) as { model: string; input: ResponsesInputItem[] };
        // The conversation in chat-completions shape, which the golden replay reads.
        const messages = request.input.map((item) => {
          if (item.type === "function_call")
            return {
              role: "assistant",
              tool_calls: [
                {
                  id: item.call_id ?? "",
                  function: { name: item.name ?? "", arguments: item.arguments ?? "" },
                },
              ],
            };
          if (item.type === "function_call_output")
            return {
              role: "tool",
              tool_call_id: item.call_id ?? "",
              content: typeof item.output === "string" ? item.output : JSON.stringify(item.output),
            };
          const content =
            typeof item.content === "string"
              ? item.content
              : (item.content ?? []).map((p) => p.text ?? "").join("");
          return { role: item.role ?? "user", content };
        });
        const ticket = messages.find((m) => m.role === "user")?.content ?? "";
        const task = byTicket.get(typeof ticket === "string" ? ticket : "");
        if (!task) return json(400, { error: { message: "unknown ticket", type: "x", code: "x" } });
        const next = await nextGoldenAction(task, messages);
        const n = ++state.answered;
        const output =
          next.type === "finish"
            ? [
                {
                  type: "message",
                  role: "assistant",
                  id: `msg_${n}`,
                  content: [{ type: "output_text", text: next.text, annotations: [] }],
                },
              ]
            : [
                {
                  type: "function_call",
                  id: `fc_${n}`,
                  call_id: `call_${n}`,
                  name: next.call.name,
                  arguments: JSON.stringify(next.call.arguments),
                  status: "completed",
                },
              ];
        const input = Math.ceil(body.length / 4);
        return json(200, {
          id: `resp_${n}`,
          created_at: 1_700_000_000,
          model: request.model,
          output,
          incomplete_details: null,
          usage: {
            input_tokens: input,
            output_tokens: 20,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        });
      })
      .catch((e: unknown) =>
        json(500, { error: { message: `fake bug: ${(e as Error).message}`, type: "x", code: "x" } }),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get answered() {
      return state.answered;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
