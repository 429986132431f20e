import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { StopReason, TrialSession } from "../trial/agent.js";
import { TOOL_GUIDE, WORKSPACE_GUIDE } from "../trial/system-prompt.js";
import { ParamsCheckedServer } from "./params-checked-server.js";

/** The tool an agent outside our loop calls to hand in its final message (it holds the answer card). */
export const DELIVER_TOOL = "deliver";

/** The MCP prompt, and the name of the MCP resource, that hold the ticket. */
export const TICKET_PROMPT = "ticket";

/** The URI of the ticket as an MCP resource. */
export const TICKET_RESOURCE_URI = "apiflow://trial/ticket";

/**
 * Arguments of `deliver`: the final message (`answer`, with the card in a fenced json block) or the
 * card itself (`card`), which is then wrapped in that block. Exactly one of the two: with both, one
 * would be dropped in silence (the agent audit found a correct `card` lost behind a prose `answer`),
 * so the call is refused and the agent may deliver again.
 *
 * @example {"card": {"firmware": "FW-7Q2K9D"}}
 */
export const DeliverArgsSchema = z
  .strictObject({
    answer: z
      .string()
      .optional()
      .describe("Your final message; it must hold the answer card in a ```json block"),
    card: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Or the answer card itself, as one JSON object with exactly the fields the ticket names"),
  })
  .refine((a) => a.answer !== undefined || a.card !== undefined, { message: "send `answer` or `card`" })
  .refine((a) => a.answer === undefined || a.card === undefined, {
    message:
      "send `answer` or `card`, not both: `card` is the answer card itself; `answer` is a message holding it in a ```json block",
  });

/** The final message a `deliver` call stands for. */
export function deliveredMessage(args: z.infer<typeof DeliverArgsSchema>): string {
  if (args.answer !== undefined) return args.answer;
  return `\`\`\`json\n${JSON.stringify(args.card, null, 2)}\n\`\`\``;
}

const DELIVER_DESCRIPTION =
  "Hand in your answer card and end the trial: pass it either as `card` (one JSON object with exactly the fields the ticket names) or as `answer` (a message holding the card in a ```json block), not both. This is the only way to hand in an answer; call it once, when the work is done.";

/** The eight tools an agent over MCP is offered: the seven of the contract, then `deliver`. */
export function mcpToolNames(session: Pick<TrialSession, "tools">): string[] {
  return [...session.tools.map((t) => t.name), DELIVER_TOOL];
}

/**
 * What an agent over MCP is told (the server's `instructions`, and the `ticket` prompt): the
 * system prompt's guides to the tools and the workspace, with `deliver` as the one way to finish,
 * then the ticket.
 *
 * @example mcpInstructions(session).startsWith("You are an engineer working against a live API through eight tools")
 */
export function mcpInstructions(session: Pick<TrialSession, "ticket" | "tools">): string {
  return `You are an engineer working against a live API through eight tools: ${mcpToolNames(session).join(", ")}.

Tools
${TOOL_GUIDE}
- ${DELIVER_TOOL}(card | answer): hand in your answer card and end the trial.

${WORKSPACE_GUIDE}

When you are done, call ${DELIVER_TOOL} with your answer card: card = one JSON object with exactly the
fields the ticket names and one value per field. Only ${DELIVER_TOOL} hands in an answer; a message
without it is not read.

# Ticket

${session.ticket}`;
}

/** How a stop reason of a tool call reads in the error that answers later calls. */
const STOP_WORDS: Partial<Record<StopReason, string>> = {
  clarify: "the agent asked for clarification",
  report_blocked: "the agent reported the job blocked",
  tool_call_limit: "the tool-call limit was reached",
  token_limit: "the token limit was reached",
  time_limit: "the wall-time limit was reached",
};

function text(content: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: content }], ...(isError ? { isError: true } : {}) };
}

/** What the server tells its owner. */
export interface TrialMcpServerHooks {
  /** The trial has ended here (delivered, abstained, or a limit), for the reason given. */
  onEnd: (why: string) => void;
  /** The client has initialized; `name` is its `clientInfo.name`. */
  onClient?: (client: { name: string; version: string }) => void;
  /** Why the trial ended, for the error that answers a call made after it (it may have ended elsewhere). */
  endedBecause: () => string;
}

/**
 * An MCP server over one trial: the seven tools with their published argument schemas and the
 * in-process results (`TrialSession.step` runs them, so the transcript, the limits and the event
 * log are the harness's own), plus `deliver`. The ticket is the server's `instructions`, the
 * `ticket` prompt and the `apiflow://trial/ticket` resource.
 *
 * Errors follow MCP: a tool's own failure (bad arguments to a known tool, a refused request) is a
 * result with `isError`, so the agent can read it and correct itself; an unknown tool or params
 * that are not a `tools/call` are -32602; a call after the trial ended is -32600 saying why.
 *
 * @example const server = trialMcpServer(session, { onEnd: (why) => done(why), endedBecause: () => why }); await server.connect(transport);
 */
export function trialMcpServer(session: TrialSession, hooks: TrialMcpServerHooks): Server {
  const instructions = mcpInstructions(session);
  const server = new ParamsCheckedServer(
    { name: "apiflow-trial", version: "1.0.0" },
    { capabilities: { tools: {}, prompts: {}, resources: {} }, instructions },
  );
  server.oninitialized = () => {
    const client = server.getClientVersion();
    if (client) hooks.onClient?.({ name: client.name, version: client.version });
  };
  const ended = () =>
    new McpError(
      ErrorCode.InvalidRequest,
      `the trial has ended (${hooks.endedBecause()}); no more tool calls are taken`,
    );
  const deliverSchema = z.toJSONSchema(DeliverArgsSchema, { io: "input" }) as Record<string, unknown>;
  const names = mcpToolNames(session);
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...session.tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema as never,
      })),
      { name: DELIVER_TOOL, description: DELIVER_DESCRIPTION, inputSchema: deliverSchema as never },
    ],
  }));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      {
        name: TICKET_PROMPT,
        description: "The ticket of this trial, with the tools and how to deliver (as in the instructions)",
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== TICKET_PROMPT)
      throw new McpError(
        ErrorCode.InvalidParams,
        `there is no prompt ${JSON.stringify(request.params.name)}; the one prompt is ${TICKET_PROMPT}`,
      );
    return {
      description: "The ticket of this trial",
      messages: [{ role: "user", content: { type: "text", text: instructions } }],
    };
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: TICKET_RESOURCE_URI,
        name: TICKET_PROMPT,
        description: "The ticket of this trial",
        mimeType: "text/markdown",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== TICKET_RESOURCE_URI)
      throw new McpError(
        ErrorCode.InvalidParams,
        `there is no resource ${JSON.stringify(request.params.uri)}; the one resource is ${TICKET_RESOURCE_URI}`,
      );
    return { contents: [{ uri: TICKET_RESOURCE_URI, mimeType: "text/markdown", text: session.ticket }] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    if (!names.includes(name))
      throw new McpError(
        ErrorCode.InvalidParams,
        `there is no tool ${JSON.stringify(name)}; the tools are ${names.join(", ")}`,
      );
    if (session.ended) throw ended();
    const args = request.params.arguments ?? {};
    if (name === DELIVER_TOOL) {
      const parsed = DeliverArgsSchema.safeParse(args);
      if (!parsed.success) {
        return text(`error (bad_arguments): ${parsed.error.issues.map((i) => i.message).join("; ")}`, true);
      }
      session.finish(deliveredMessage(parsed.data));
      hooks.onEnd("the answer card was delivered");
      return text("answer delivered; the trial ends");
    }
    const step = await session.step({ toolCalls: [{ name, arguments: args }] });
    const result = step.results[0];
    if (step.stopped) hooks.onEnd(STOP_WORDS[step.stopped] ?? step.stopped);
    if (!result) throw ended();
    return text(result.content, !result.ok);
  });
  return server;
}
