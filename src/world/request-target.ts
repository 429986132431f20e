import { ok, type Reply } from "./reply.js";

/** Request paths longer than this are refused with 400 (no route of any world comes near it). */
export const MAX_PATH_CHARS = 2048;

/**
 * The answer to a request whose path no server should route: longer than `MAX_PATH_CHARS`, not
 * valid percent-encoding (`/%E0%A4%A`), or holding a NUL once decoded. A 400 before any world sees
 * the request, unstyled like `UNPARSEABLE_REQUEST`, on both transports; null for any other path.
 * (The query is left to the route: its parameters are read leniently.)
 *
 * @example malformedPath("http://world/%E0%A4%A")?.status // 400
 */
export function malformedPath(href: string): Reply | null {
  // The path as Hono's getPath reads it: from the first "/" after the scheme's "//" to "?" or "#".
  const start = href.indexOf("/", href.indexOf(":") + 4);
  if (start === -1) return null;
  const end = href.slice(start).search(/[?#]/);
  const path = end === -1 ? href.slice(start) : href.slice(start, start + end);
  if (path.length > MAX_PATH_CHARS)
    return refuse(`the request path is ${path.length} characters long; at most ${MAX_PATH_CHARS} are served`);
  let decoded: string;
  try {
    decoded = path.includes("%") ? decodeURIComponent(path) : path;
  } catch {
    return refuse("the request path is not valid percent-encoding");
  }
  if (decoded.includes("\0")) return refuse("the request path holds a NUL character");
  return null;
}

function refuse(message: string): Reply {
  return ok(400, { error: "bad_request", message });
}
