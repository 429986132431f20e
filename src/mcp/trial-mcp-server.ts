import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { TrialSession } from "../trial/agent.js";

/** The tool an agent outside our loop calls to hand in its final message (it holds the answer card). */
export const DELIVER_TOOL = "deliver";

/**
 * Arguments of `deliver`: the final message (`answer`, with the card in a fenced json block) or the
 * card itself (`card`), which is then wrapped in that block. One of the two is required.
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
  .refine((a) => a.answer !== undefined || a.card !== undefined, { message: "send `answer` or `card`" });

/** The final message a `deliver` call stands for. */
export function deliveredMessage(args: z.infer<typeof DeliverArgsSchema>): string {
  if (args.answer !== undefined) return args.answer;
  return `\`\`\`json\n${JSON.stringify(args.card, null, 2)}\n\`\`\``;
}

const DELIVER_DESCRIPTION =
  "Hand in your final answer and end the trial: pass the answer card as `card` (one JSON object with exactly the fields the ticket names) or your final message as `answer` (with the card in a ```json block). Call it once, when the work is done.";

function text(content: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: content }], ...(isError ? { isError: true } : {}) };
}

/**
 * An MCP server over one trial: the seven tools with their published argument schemas and the
 * in-process results (`TrialSession.step` runs them, so the transcript, the limits and the event
 * log are the harness's own), plus `deliver`. The ticket is the server's `instructions`.
 * `onEnd` is called once the trial has ended (delivered, abstained, or a limit).
 *
 * @example const server = trialMcpServer(session, () => done()); await server.connect(new StdioServerTransport());
 */
export function trialMcpServer(session: TrialSession, onEnd: () => void): Server {
  const server = new Server(
    { name: "apiflow-trial", version: "1.0.0" },
    {
      capabilities: { tools: {} },
      instructions: `${session.systemPrompt}\n\n# Ticket\n\n${session.ticket}\n\nWhen you are done, call ${DELIVER_TOOL} with your answer card.`,
    },
  );
  const deliverSchema = z.toJSONSchema(DeliverArgsSchema, { io: "input" }) as Record<string, unknown>;
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
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (session.ended)
      return text("error (trial_ended): the trial has ended; no more tool calls are taken", true);
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    if (name === DELIVER_TOOL) {
      const parsed = DeliverArgsSchema.safeParse(args);
      if (!parsed.success) {
        return text(`error (bad_arguments): ${parsed.error.issues.map((i) => i.message).join("; ")}`, true);
      }
      session.finish(deliveredMessage(parsed.data));
      onEnd();
      return text("answer delivered; the trial ends");
    }
    const step = await session.step({ toolCalls: [{ name, arguments: args }] });
    const result = step.results[0];
    if (step.stopped) onEnd();
    if (!result) return text(`error (trial_ended): the trial ended (${step.stopped ?? "stopped"})`, true);
    return text(result.content, !result.ok);
  });
  return server;
}
