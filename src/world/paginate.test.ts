import { describe, expect, it } from "vitest";
import type { JsonObject } from "../bank/json.js";
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, PAGINATION_PARAMS, paginate } from "./paginate.js";

/**
 * `paginate` on its own (issue 21: mutation testing). Each style is checked at its edges: the
 * default size, the cap, the first and last page, a page past the end, and every refusal with its
 * wording, so a changed bound, slice or message fails here.
 */
const rows = (n: number): JsonObject[] => Array.from({ length: n }, (_, i) => ({ id: i + 1 }));
const ids = (body: unknown, key = "items") =>
  ((body as Record<string, JsonObject[]>)[key] ?? []).map((r) => r.id);
const url = (query: string) => new URL(`http://w/v3/items${query}`);

describe("paginate: defaults and caps", () => {
  it("names its defaults and the parameters each style reads", () => {
    expect(DEFAULT_PAGE_SIZE).toBe(10);
    expect(DEFAULT_MAX_PAGE_SIZE).toBe(100);
    expect(PAGINATION_PARAMS).toEqual({
      cursor: ["cursor", "limit"],
      page: ["page", "per_page"],
      offset: ["offset", "limit"],
      link: ["page", "per_page"],
    });
  });

  it("a route naming no size serves DEFAULT_PAGE_SIZE and accepts up to DEFAULT_MAX_PAGE_SIZE", () => {
    const items = rows(150);
    const first = paginate({ style: "offset" }, "items", items, "r", url(""));
    expect(first.body).toMatchObject({ total: 150, offset: 0, limit: 10 });
    expect(ids(first.body)).toHaveLength(10);
    expect(paginate({ style: "offset" }, "items", items, "r", url("?limit=100")).status).toBe(200);
    const past = paginate({ style: "offset" }, "items", items, "r", url("?limit=101"));
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      error: "invalid_query_parameter",
      message: 'limit must be an integer from 1 to 100, got "101"',
      parameter: "limit",
    });
  });

  it("the default size is cut to the route's cap", () => {
    const r = paginate({ style: "offset", page_size: 50, max_page_size: 5 }, "items", rows(20), "r", url(""));
    expect(r.body).toMatchObject({ limit: 5 });
    expect(ids(r.body)).toEqual([1, 2, 3, 4, 5]);
  });

  it("a size below the route's cap is kept", () => {
    const r = paginate({ style: "offset", page_size: 3, max_page_size: 5 }, "items", rows(20), "r", url(""));
    expect(r.body).toMatchObject({ limit: 3 });
  });

  for (const [raw, why] of [
    ["0", "below the minimum"],
    ["-1", "negative"],
    ["1.5", "not an integer"],
    ["abc", "not a number"],
    ["", "empty"],
    ["99999999999999999999", "not a safe integer"],
    ["1e1", "in exponent form"],
    ["0x10", "in hexadecimal"],
    [" 2", "padded"],
  ] as const) {
    it(`limit=${JSON.stringify(raw)} (${why}) is refused, naming the parameter and the range`, () => {
      const r = paginate({ style: "offset", max_page_size: 20 }, "items", rows(5), "r", url(`?limit=${raw}`));
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: "invalid_query_parameter",
        message: `limit must be an integer from 1 to 20, got ${JSON.stringify(raw)}`,
        parameter: "limit",
      });
    });
  }

  it("an unbounded parameter's refusal says so", () => {
    const r = paginate({ style: "offset" }, "items", rows(5), "r", url("?offset=-1"));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: "invalid_query_parameter",
      message: 'offset must be an integer >= 0, got "-1"',
      parameter: "offset",
    });
    expect(paginate({ style: "page" }, "items", rows(5), "r", url("?page=0")).body).toEqual({
      error: "invalid_query_parameter",
      message: 'page must be an integer >= 1, got "0"',
      parameter: "page",
    });
  });
});

describe("paginate: offset", () => {
  it("serves limit rows from offset and reports them; offset 0 and the last row are edges", () => {
    const p = { style: "offset", page_size: 2 } as const;
    const r = paginate(p, "items", rows(5), "r", url("?offset=3&limit=2"));
    expect(r).toEqual({
      status: 200,
      body: { items: [{ id: 4 }, { id: 5 }], total: 5, offset: 3, limit: 2, next_offset: null },
      headers: {},
    });
    expect(ids(paginate(p, "items", rows(5), "r", url("?offset=0")).body)).toEqual([1, 2]);
    // The next page starts after this one, until this one reaches the last row.
    expect(paginate(p, "items", rows(5), "r", url("?offset=2")).body).toMatchObject({ next_offset: 4 });
    expect(ids(paginate(p, "items", rows(5), "r", url("?offset=4")).body)).toEqual([5]);
    expect(ids(paginate(p, "items", rows(5), "r", url("?offset=5")).body)).toEqual([]);
  });
});

describe("paginate: page", () => {
  it("pages count from 1; the last page is partial; a page past the end is empty", () => {
    const p = { style: "page", page_size: 2 } as const;
    expect(paginate(p, "items", rows(5), "r", url(""))).toEqual({
      status: 200,
      body: { items: [{ id: 1 }, { id: 2 }], total: 5, page: 1, per_page: 2, total_pages: 3, next_page: 2 },
      headers: {},
    });
    expect(ids(paginate(p, "items", rows(5), "r", url("?page=2")).body)).toEqual([3, 4]);
    expect(ids(paginate(p, "items", rows(5), "r", url("?page=3")).body)).toEqual([5]);
    expect(paginate(p, "items", rows(5), "r", url("?page=3")).body).toMatchObject({ next_page: null });
    expect(ids(paginate(p, "items", rows(5), "r", url("?page=4")).body)).toEqual([]);
    expect(paginate(p, "items", rows(4), "r", url("")).body).toMatchObject({ total_pages: 2 });
  });

  it("an empty list has one (empty) page", () => {
    const r = paginate({ style: "page" }, "items", [], "r", url(""));
    expect(r.body).toEqual({ items: [], total: 0, page: 1, per_page: 10, total_pages: 1, next_page: null });
  });

  it("per_page is capped like limit", () => {
    const p = { style: "page", max_page_size: 3 } as const;
    expect(ids(paginate(p, "items", rows(9), "r", url("?per_page=3")).body)).toEqual([1, 2, 3]);
    expect(paginate(p, "items", rows(9), "r", url("?per_page=4")).body).toEqual({
      error: "invalid_query_parameter",
      message: 'per_page must be an integer from 1 to 3, got "4"',
      parameter: "per_page",
    });
    expect(paginate(p, "items", rows(9), "r", url("?per_page=x&page=0")).body).toMatchObject({
      parameter: "per_page",
    });
  });
});

describe("paginate: link", () => {
  it("the first page links next, first and last, keeping the other parameters; the body is rows and total", () => {
    const r = paginate({ style: "link", page_size: 2 }, "items", rows(5), "r", url("?status=open"));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [{ id: 1 }, { id: 2 }], total: 5 });
    expect(r.headers).toEqual({
      link: [
        '</v3/items?status=open&page=2&per_page=2>; rel="next"',
        '</v3/items?status=open&page=1&per_page=2>; rel="first"',
        '</v3/items?status=open&page=3&per_page=2>; rel="last"',
      ].join(", "),
      "x-total-count": "5",
    });
  });

  it("a middle page links next and prev; the last links only prev", () => {
    const p = { style: "link", page_size: 2 } as const;
    const middle = paginate(p, "items", rows(5), "r", url("?page=2"));
    expect(ids(middle.body)).toEqual([3, 4]);
    expect(middle.headers.link).toBe(
      '</v3/items?page=3&per_page=2>; rel="next", </v3/items?page=1&per_page=2>; rel="prev", ' +
        '</v3/items?page=1&per_page=2>; rel="first", </v3/items?page=3&per_page=2>; rel="last"',
    );
    const last = paginate(p, "items", rows(5), "r", url("?page=3"));
    expect(last.headers.link).toBe(
      '</v3/items?page=2&per_page=2>; rel="prev", </v3/items?page=1&per_page=2>; rel="first", ' +
        '</v3/items?page=3&per_page=2>; rel="last"',
    );
  });

  it("a page past the end links prev to the last page, not to the page before it", () => {
    const r = paginate({ style: "link", page_size: 2 }, "items", rows(5), "r", url("?page=9"));
    expect(ids(r.body)).toEqual([]);
    expect(r.headers.link).toContain('</v3/items?page=3&per_page=2>; rel="prev"');
    expect(r.headers.link).not.toContain('rel="next"');
  });

  it("refuses a bad page like the page style", () => {
    const r = paginate({ style: "link" }, "items", rows(5), "r", url("?page=abc"));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: "invalid_query_parameter", parameter: "page" });
  });
});

describe("paginate: cursor", () => {
  const p = { style: "cursor", page_size: 2 } as const;
  const cursorOf = (offset: number, route = "listItems") =>
    `c_${Buffer.from(`${route}:${offset}`).toString("base64url")}`;

  it("walks the list by next_cursor and ends with null", () => {
    const first = paginate(p, "items", rows(5), "listItems", url(""));
    expect(first).toEqual({
      status: 200,
      body: { items: [{ id: 1 }, { id: 2 }], total: 5, next_cursor: cursorOf(2) },
      headers: {},
    });
    const second = paginate(p, "items", rows(5), "listItems", url(`?cursor=${cursorOf(2)}`));
    expect(second.body).toEqual({ items: [{ id: 3 }, { id: 4 }], total: 5, next_cursor: cursorOf(4) });
    const last = paginate(p, "items", rows(5), "listItems", url(`?cursor=${cursorOf(4)}`));
    expect(last.body).toEqual({ items: [{ id: 5 }], total: 5, next_cursor: null });
  });

  it("a list that ends exactly on a page boundary has no next cursor", () => {
    const r = paginate(p, "items", rows(4), "listItems", url(`?cursor=${cursorOf(2)}`));
    expect(r.body).toEqual({ items: [{ id: 3 }, { id: 4 }], total: 4, next_cursor: null });
    expect(paginate(p, "items", rows(2), "listItems", url("")).body).toMatchObject({ next_cursor: null });
    expect(paginate(p, "items", rows(3), "listItems", url("")).body).toMatchObject({
      next_cursor: cursorOf(2),
    });
  });

  it("an empty cursor starts at the beginning; limit is honoured and capped", () => {
    expect(ids(paginate(p, "items", rows(5), "listItems", url("?cursor=")).body)).toEqual([1, 2]);
    expect(ids(paginate(p, "items", rows(5), "listItems", url("?limit=3")).body)).toEqual([1, 2, 3]);
    const capped = paginate({ style: "cursor", max_page_size: 3 }, "items", rows(5), "l", url("?limit=4"));
    expect(capped.body).toMatchObject({ error: "invalid_query_parameter", parameter: "limit" });
  });

  for (const [name, cursor] of [
    ["another route's", cursorOf(2, "listOther")],
    ["an unprefixed", Buffer.from("listItems:2").toString("base64url")],
    ["a wrongly prefixed", `zz${Buffer.from("listItems:2").toString("base64url")}`],
    ["a non-numeric", `c_${Buffer.from("listItems:x").toString("base64url")}`],
    ["a route-less", `c_${Buffer.from(":2").toString("base64url")}`],
    ["a trailing-text", `c_${Buffer.from("listItems:2x").toString("base64url")}`],
    ["an over-long", `c_${Buffer.from("listItems:1234567890").toString("base64url")}`],
  ] as const) {
    it(`${name} cursor is refused as invalid_cursor, naming the fix`, () => {
      const r = paginate(p, "items", rows(5), "listItems", url(`?cursor=${cursor}`));
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: "invalid_cursor",
        message: `cursor ${JSON.stringify(cursor)} was not issued by this route; start without a cursor and follow next_cursor`,
        parameter: "cursor",
      });
    });
  }

  it("a route id containing a colon still round-trips (the offset is the last field)", () => {
    const r = paginate(p, "items", rows(5), "a:b", url(`?cursor=${cursorOf(2, "a:b")}`));
    expect(ids(r.body)).toEqual([3, 4]);
  });
});
