import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { World } from "../bank/world-schema.js";
import { createWorldApp, handedBackText, handOverBody, UNPARSEABLE_REQUEST } from "./engine.js";
import type { TrialWorld } from "./trial-world.js";

/**
 * How the workspace's `execute` reaches a world: a function from a fetch Request to a Response.
 * In-process is the default (no socket); HTTP goes over loopback to `apiflow serve`.
 */
export type WorldTransport = ((request: Request) => Promise<Response>) & {
  /**
   * In-process only: the same exchange with the request body handed over as text beside a
   * body-less `request`, and the response text handed back, so no body stream is built or read
   * on either side (a large share of a short in-process call). Same status, headers and text.
   */
  plain?: (request: Request, body: string | undefined) => Promise<PlainResponse>;
};

/** A response as `WorldTransport.plain` hands it back. */
export interface PlainResponse {
  status: number;
  headers: Headers;
  text: string;
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
  send.plain = async (request, body) => {
    // Handed over even when empty: it tells the engine the response text is taken, not its body.
    handOverBody(request, body ?? "");
    const response = await app.fetch(request, { trial });
    const text = handedBackText(response) ?? (await response.text());
    return { status: response.status, headers: response.headers, text };
  };
  return send;
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
