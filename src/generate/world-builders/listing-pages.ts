import type { WorldTemplate } from "../world-template.js";

/**
 * One listing request of a walk: its URL (`{{name}}` names a value an earlier page of the walk
 * captured), what to capture from it for the next request, and where each wanted asset sits in its
 * body (asset index → dotted path).
 */
export interface ListingPage {
  url: string;
  capture?: Record<string, string>;
  items: Map<number, string>;
}

/**
 * See `BuiltWorld.listPages`. Every request is one a careful agent can make from what it has seen:
 * it asks for the largest page the spec allows (`maxPageSize`; larger is refused) and follows the
 * listing's own pointer to the next page (`next_cursor`, `next_page`, `next_offset`, or the page
 * number of the `Link` header's `rel="next"` target) until the page that
 * holds the last wanted record, or to the end when `whole` (a question about the whole
 * collection: only the last page shows there is nothing more).
 *
 * @example listPages(FLEET, "/api/v3/trucks", [30], false).length // 2 (pages of 25)
 */
export function listPages(
  t: WorldTemplate,
  path: string,
  indexes: readonly number[],
  whole: boolean,
): ListingPage[] {
  const cap = t.pagination.maxPageSize;
  const style = t.pagination.style;
  const lastIndex = whole ? t.collectionSize - 1 : Math.max(0, ...indexes);
  const pages = Math.floor(lastIndex / cap) + 1;
  // Cursors are opaque, so the walk captures them; a page number or offset it sends as the number
  // the previous page named (`next_page`, `next_offset`, the `Link` header's next target).
  const binding = (k: number) => `listing_cursor${k}`;
  const query = (k: number): string => {
    switch (style) {
      case "cursor":
        return k === 0 ? `limit=${cap}` : `limit=${cap}&cursor={{${binding(k)}}}`;
      case "offset":
        return `offset=${k * cap}&limit=${cap}`;
      case "page":
      case "link":
        return `page=${k + 1}&per_page=${cap}`;
    }
  };
  return Array.from({ length: pages }, (_, k) => {
    const items = new Map<number, string>();
    for (const i of indexes) if (Math.floor(i / cap) === k) items.set(i, `${t.asset.plural}.${i - k * cap}`);
    const capture = style === "cursor" && k + 1 < pages ? { [binding(k + 1)]: "next_cursor" } : undefined;
    return { url: `${path}?${query(k)}`, ...(capture ? { capture } : {}), items };
  });
}
