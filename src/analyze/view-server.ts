import { createReadStream } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isAbsolute, join } from "node:path";
import type { ViewerTrial } from "./html-report.js";
import { EXPLAIN_SUFFIX, explainTranscript } from "./trial-evidence.js";

/** Request paths longer than this are answered 400 (transcript paths are far shorter). */
const MAX_PATH_CHARS = 4096;

/** The decoded path of a request target, or why it is refused (bad percent-encoding, a NUL, too long). */
function requestPath(target: string): { ok: true; path: string } | { ok: false; reason: string } {
  const raw = target.split("?")[0]!;
  if (raw.length > MAX_PATH_CHARS)
    return { ok: false, reason: `path longer than ${MAX_PATH_CHARS} characters` };
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return { ok: false, reason: "path is not valid percent-encoding" };
  }
  if (path.includes("\0")) return { ok: false, reason: "path holds a NUL character" };
  return { ok: true, path };
}

/** URL prefix under which `apiflow view` serves run `i`'s transcripts. */
export const viewTranscriptBase = (run: number): string => `/runs/${run}/`;

/**
 * Serve the HTML report on 127.0.0.1 with its transcripts fetched on demand, so a run of any size
 * opens without a large page. Only the transcripts of the given trials are served (no other file
 * of the machine is reachable through it).
 *
 * @example const server = await startViewServer(html, trials, ["runs/a"], { port: 0 }); console.log(server.url);
 */
export async function startViewServer(
  html: string,
  trials: readonly ViewerTrial[],
  runs: readonly string[],
  opts: { port?: number } = {},
): Promise<{ url: string; close(): Promise<void>; closed: Promise<void> }> {
  const files = new Map<string, string>();
  for (const t of trials) {
    const path = t.record.transcript;
    if (!path) continue;
    files.set(`${viewTranscriptBase(t.run)}${path}`, isAbsolute(path) ? path : join(runs[t.run]!, path));
  }
  const server = createServer((req, res) => {
    const url = requestPath(req.url ?? "/");
    if (!url.ok) {
      res.writeHead(400, { "content-type": "text/plain" }).end(`${url.reason}\n`);
      return;
    }
    if (req.method !== "GET") {
      res.writeHead(405).end();
      return;
    }
    if (url.path === "/" || url.path === "/index.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
      return;
    }
    const explained = url.path.endsWith(EXPLAIN_SUFFIX)
      ? files.get(url.path.slice(0, -EXPLAIN_SUFFIX.length))
      : undefined;
    if (explained) {
      // A verdict's evidence, computed from the stored event log beside the transcript.
      const ex = explainTranscript(explained);
      if (ex) res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(ex));
      else res.writeHead(404, { "content-type": "text/plain" }).end("no stored event log for this trial\n");
      return;
    }
    // Only an exact key of the map is served: `..`, encoded or not, never resolves to a file.
    const file = files.get(url.path);
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const stream = createReadStream(file);
    stream.on("error", () => {
      if (!res.headersSent) res.writeHead(404, { "content-type": "text/plain" });
      res.end("transcript missing\n");
    });
    stream.once("open", () => res.writeHead(200, { "content-type": "application/json" }));
    stream.pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const closed = new Promise<void>((resolve) => server.once("close", () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    closed,
  };
}
