import type { JsonObject } from "../bank/json.js";
import type { Pagination } from "../bank/world-schema.js";
import { fail, type Reply } from "./reply.js";

/** Page size when a paginated route names none. */
export const DEFAULT_PAGE_SIZE = 10;
/** Largest page a client may ask for when a route names no maximum. */
export const DEFAULT_MAX_PAGE_SIZE = 100;

/** Query parameters each pagination style reads (for the spec and for unknown-parameter checks). */
export const PAGINATION_PARAMS: Record<Pagination["style"], string[]> = {
  cursor: ["cursor", "limit"],
  page: ["page", "per_page"],
  offset: ["offset", "limit"],
  link: ["page", "per_page"],
};

/**
 * Cut one page out of a list route's records. `items` are already filtered and shown; `url` is
 * the request URL (path and query, canonical), used to build `Link` targets that keep the other
 * parameters; `link` turns a canonical target into the form a client follows (`wireLink`).
 * Bad parameters answer 400 `invalid_query_parameter` naming the parameter; a page past the end is
 * an empty list. Every style reports `total`; the cursor, page and offset styles say where the next
 * page starts (`next_cursor`, `next_page`, `next_offset`; null on the last page), the link style
 * says it in its `Link` header.
 *
 * @example paginate({ style: "page", page_size: 2 }, "vessels", rows, "listVessels", new URL("http://w/v3/vessels?page=2"))
 */
export function paginate(
  pagination: Pagination,
  key: string,
  items: JsonObject[],
  routeId: string,
  url: URL,
  link: (target: string) => string = (target) => target,
): Reply {
  const max = pagination.max_page_size ?? DEFAULT_MAX_PAGE_SIZE;
  const defaultSize = Math.min(pagination.page_size ?? DEFAULT_PAGE_SIZE, max);
  const total = items.length;
  const q = url.searchParams;
  const int = (name: string, min: number, upper: number | null, fallback: number): number | Reply => {
    const raw = q.get(name);
    if (raw === null) return fallback;
    const n = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || (upper !== null && n > upper)) {
      const range = upper === null ? `an integer >= ${min}` : `an integer from ${min} to ${upper}`;
      return fail(400, "invalid_query_parameter", `${name} must be ${range}, got ${JSON.stringify(raw)}`, {
        parameter: name,
      });
    }
    return n;
  };
  switch (pagination.style) {
    case "cursor": {
      const limit = int("limit", 1, max, defaultSize);
      if (typeof limit !== "number") return limit;
      const cursor = q.get("cursor");
      let offset = 0;
      if (cursor !== null && cursor !== "") {
        const decoded = decodeCursor(cursor, routeId);
        if (decoded === null) {
          return fail(
            400,
            "invalid_cursor",
            `cursor ${JSON.stringify(cursor)} was not issued by this route; start without a cursor and follow next_cursor`,
            { parameter: "cursor" },
          );
        }
        offset = decoded;
      }
      const next = offset + limit < total ? encodeCursor(offset + limit, routeId) : null;
      return {
        status: 200,
        body: { [key]: items.slice(offset, offset + limit), total, next_cursor: next },
        headers: {},
      };
    }
    case "offset": {
      const limit = int("limit", 1, max, defaultSize);
      if (typeof limit !== "number") return limit;
      const offset = int("offset", 0, null, 0);
      if (typeof offset !== "number") return offset;
      const nextOffset = offset + limit < total ? offset + limit : null;
      return {
        status: 200,
        body: { [key]: items.slice(offset, offset + limit), total, offset, limit, next_offset: nextOffset },
        headers: {},
      };
    }
    case "page":
    case "link": {
      const perPage = int("per_page", 1, max, defaultSize);
      if (typeof perPage !== "number") return perPage;
      const page = int("page", 1, null, 1);
      if (typeof page !== "number") return page;
      const totalPages = Math.max(1, Math.ceil(total / perPage));
      const slice = items.slice((page - 1) * perPage, page * perPage);
      if (pagination.style === "page") {
        return {
          status: 200,
          body: {
            [key]: slice,
            total,
            page,
            per_page: perPage,
            total_pages: totalPages,
            next_page: page < totalPages ? page + 1 : null,
          },
          headers: {},
        };
      }
      const target = (p: number) => {
        const params = new URLSearchParams(q);
        params.set("page", String(p));
        params.set("per_page", String(perPage));
        return `<${link(`${url.pathname}?${params.toString()}`)}>`;
      };
      const links: string[] = [];
      if (page < totalPages) links.push(`${target(page + 1)}; rel="next"`);
      if (page > 1) links.push(`${target(Math.min(page - 1, totalPages))}; rel="prev"`);
      links.push(`${target(1)}; rel="first"`, `${target(totalPages)}; rel="last"`);
      return {
        status: 200,
        body: { [key]: slice, total },
        headers: { link: links.join(", "), "x-total-count": String(total) },
      };
    }
  }
}

function encodeCursor(offset: number, routeId: string): string {
  return `c_${Buffer.from(`${routeId}:${offset}`).toString("base64url")}`;
}

function decodeCursor(cursor: string, routeId: string): number | null {
  if (!cursor.startsWith("c_")) return null;
  const text = Buffer.from(cursor.slice(2), "base64url").toString("utf8");
  const match = /^(.*):(\d{1,9})$/.exec(text);
  if (!match || match[1] !== routeId) return null;
  return Number(match[2]);
}
