import { createReadStream } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isAbsolute, join } from "node:path";
import type { ViewerTrial } from "./html-report.js";
import { EXPLAIN_SUFFIX, explainTranscript } from "./trial-evidence.js";

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
    const url = decodeURIComponent((req.url ?? "/").split("?")[0]!);
    if (req.method !== "GET") {
      res.writeHead(405).end();
      return;
    }
    if (url === "/" || url === "/index.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
      return;
    }
    const explained = url.endsWith(EXPLAIN_SUFFIX)
      ? files.get(url.slice(0, -EXPLAIN_SUFFIX.length))
      : undefined;
    if (explained) {
      // A verdict's evidence, computed from the stored event log beside the transcript.
      const ex = explainTranscript(explained);
      if (ex) res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(ex));
      else res.writeHead(404, { "content-type": "text/plain" }).end("no stored event log for this trial\n");
      return;
    }
    const file = files.get(url);
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
