import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** A line longer than this (10 MiB, the SDK's stdio default) is refused rather than buffered on. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * The MCP stdio transport (one JSON-RPC message per line), answering what the SDK's
 * `StdioServerTransport` drops in silence: a line that is not JSON gets -32700 (Parse error) and
 * a JSON value that is not a JSON-RPC message gets -32600 (Invalid Request), with the request's
 * id when it has one, so a client never waits on an id that will not be answered. Valid messages
 * go to the SDK's protocol unchanged. The SDK can answer these over HTTP but not over stdio;
 * framing and serialisation are its own (`serializeMessage`, `JSONRPCMessageSchema`).
 *
 * @example await trialMcpServer(session, hooks).connect(new StrictStdioServerTransport(process.stdin, process.stdout));
 */
export class StrictStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly decoder = new StringDecoder("utf8");
  private buffer = "";
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    this.buffer += typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    let newline = this.buffer.indexOf("\n");
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, "");
      this.buffer = this.buffer.slice(newline + 1);
      this.receive(line);
      newline = this.buffer.indexOf("\n");
    }
    if (Buffer.byteLength(this.buffer) > MAX_LINE_BYTES) {
      this.buffer = "";
      this.refuse(ErrorCode.ParseError, `Parse error: a message longer than ${MAX_LINE_BYTES} bytes`, null);
    }
  };

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
  }

  private receive(line: string): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this.refuse(ErrorCode.ParseError, `Parse error: ${(e as Error).message}`, null);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (message.success) {
      this.onmessage?.(message.data);
      return;
    }
    const id = (value as { id?: unknown } | null)?.id;
    this.refuse(
      ErrorCode.InvalidRequest,
      `Invalid Request: not a JSON-RPC 2.0 request, notification or response (${message.error.issues
        .map((i) => `${i.message}${i.path.length ? ` at ${i.path.join(".")}` : ""}`)
        .slice(0, 3)
        .join("; ")})`,
      typeof id === "string" || typeof id === "number" ? id : null,
    );
  }

  private refuse(code: number, message: string, id: string | number | null): void {
    if (this.closed) return;
    this.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.buffer = "";
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}
