import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type AnyObjectSchema,
  getParseErrorMessage,
  type SchemaOutput,
  safeParse,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { getMethodLiteral } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

type Handler<T extends AnyObjectSchema> = Parameters<Server["setRequestHandler"]>[1] extends (
  request: never,
  ...rest: infer R
) => infer Out
  ? (request: SchemaOutput<T>, ...rest: R) => Out
  : never;

/**
 * The SDK's `Server`, except that a request whose params do not fit its method's schema is
 * answered -32602 (Invalid params), as JSON-RPC says, instead of -32603: the SDK parses params
 * before any handler runs and reports a parse failure as an internal error. Every handler, the
 * SDK's own `initialize` and `ping` included (its constructor registers them through this
 * method), is installed under a schema that checks only the method; its own schema is checked
 * first inside the handler.
 *
 * @example const server = new ParamsCheckedServer({ name: "x", version: "1" }, { capabilities: { tools: {} } });
 */
export class ParamsCheckedServer extends Server {
  override setRequestHandler<T extends AnyObjectSchema>(schema: T, handler: Handler<T>): void {
    const method = getMethodLiteral(schema);
    super.setRequestHandler(z.looseObject({ method: z.literal(method) }), (request, extra) => {
      const parsed = safeParse(schema, request);
      if (!parsed.success) {
        const why = getParseErrorMessage(parsed.error).replaceAll("\n", "; ");
        throw new McpError(ErrorCode.InvalidParams, `invalid params of ${method}: ${why}`);
      }
      return handler(parsed.data as SchemaOutput<T>, extra);
    });
  }
}
