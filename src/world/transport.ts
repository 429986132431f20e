import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { createWorldApp, handedBackText, handOverBody, servePlain, UNPARSEABLE_REQUEST } from "./engine.js";
import type { TrialWorld } from "./trial-world.js";

/**
 * How the workspace's `execute` reaches a world: a function from a fetch Request to a Response.
 * In-process is the default (no socket); HTTP goes over loopback to `apiflow serve`.
 */
export type WorldTransport = ((request: Request) => Promise<Response>) & {
  /**
   * In-process only: the same exchange with the request given as its URL, method and headers and
   * its body handed over as text, and the response text handed back, so no body stream (nor, for
   * the common requests, any fetch `Request`) is built or read on either side (a large share of a
   * short in-process call). Same status, headers and text as sending `new Request(url, {method,
   * headers, body})`.
   */
  plain?: (request: PlainRequest, body: string | undefined) => Promise<PlainResponse>;
};

/**
 * A request as `WorldTransport.plain` takes it; the URL absolute and parsed (as `new URL(...).href`
 * gives it: dot segments resolved), e.g. `http://world.local/v3/x`.
 */
export interface PlainRequest {
  url: string;
  method: string;
  headers: Headers;
}

/** A response as `WorldTransport.plain` hands it back. */
export interface PlainResponse {
  status: number;
  headers: Headers;
  text: string;
  /**
   * The JSON value `text` was written from (null for an empty body), when the engine wrote it: what
   * `JSON.parse(text)` gives, without parsing it back. It is the body the trial's log holds, so it
   * must not be changed. Absent when only the text is known.
   */
  body?: JsonValue;
}

const apps = new WeakMap<World, ReturnType<typeof createWorldApp>>();

/** The engine's app for a world, built once per world object. */
export function worldApp(world: World) {
  let app = apps.get(world);
  if (!app) {
    app = createWorldApp(world);
    apps.set(world, app);
  }
  return app;
}

/** In-process transport: a direct call into the world's Hono app with this trial's state. */
export function inProcessTransport(trial: TrialWorld): WorldTransport {
  const app = worldApp(trial.world);
  const send: WorldTransport = async (request) => app.fetch(request, { trial });
  send.plain = async (parts, body) => {
    const served = await servePlain(trial, parts, body);
    if (served)
      return {
        status: served.status,
        headers: new Headers(served.headers),
        text: served.text ?? "",
        body: served.body,
      };
    const request = engineRequest(parts, trial.world);
    // Handed over even when empty: it tells the engine the response text is taken, not its body.
    handOverBody(request, body ?? "");
    const response = await app.fetch(request, { trial });
    const text = handedBackText(response) ?? (await response.text());
    return { status: response.status, headers: response.headers, text };
  };
  return send;
}

// Methods the fetch spec takes as they are (no normalising, never refused).
const PLAIN_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * The request the engine is handed for an in-process exchange. A fetch `Request` costs about ten
 * microseconds (an AbortSignal, a URL parse, a copy of the headers), several percent of a
 * certification run, and the engine of a REST world reads only a request's URL, method and headers
 * (through Hono's router and `HonoRequest`; its body is handed over beside it): for such a world and
 * a method fetch keeps as it is, the parts themselves stand in for the Request. Anything else — a
 * GraphQL or MCP world (the MCP SDK reads a real Request), HEAD (Hono rebuilds the response), a method
 * fetch normalises or refuses — gets a real one, so it behaves (and fails) as before.
 */
function engineRequest(parts: PlainRequest, world: World): Request {
  if ((world.protocol ?? "rest") === "rest" && PLAIN_METHODS.has(parts.method))
    return { url: parts.url, method: parts.method, headers: parts.headers } as unknown as Request;
  return new Request(parts.url, { method: parts.method, headers: parts.headers });
}

/** HTTP transport: sends the request to a world served on loopback at `baseUrl`. */
export function httpTransport(baseUrl: string): WorldTransport {
  const base = new URL(baseUrl);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(base.hostname)) {
    throw new Error(`refusing to send world traffic off this machine: ${baseUrl}`);
  }
  return async (request) => {
    const url = new URL(request.url);
    const target = new URL(url.pathname + url.search, base);
    return fetch(new Request(target, request));
  };
}

export interface ServedWorld {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Serve one trial's world over HTTP on 127.0.0.1 (`port` 0 picks a free one).
 *
 * @example const served = await serveTrialWorld(trial, 0); console.log(served.baseUrl);
 */
export async function serveTrialWorld(trial: TrialWorld, port = 0, host = "127.0.0.1"): Promise<ServedWorld> {
  const app: Hono<{ Bindings: { trial: TrialWorld } }> = worldApp(trial.world) as never;
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: (req) => app.fetch(req, { trial }), port, hostname: host },
      (info: AddressInfo) => {
        resolve({
          baseUrl: `http://${host}:${info.port}`,
          close: () =>
            new Promise((done) => {
              server.close(() => done());
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
    // The world's responses carry no wall-clock Date header: both transports send the same headers.
    server.on("request", (_req, res: ServerResponse) => {
      res.sendDate = false;
    });
    // Requests Node cannot parse (an unknown method, a broken request line) still get a JSON 400.
    server.on("clientError", (_err: Error, socket: Duplex) => {
      if (!socket.writable) return;
      const body = JSON.stringify(UNPARSEABLE_REQUEST);
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
    server.on("error", reject);
  });
}
