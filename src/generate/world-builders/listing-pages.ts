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
 * the first page is asked with the spec's documented page size; when a wanted record lies beyond
 * it, the agent reads `total` off that page and asks for the whole collection in one page (the
 * style's size parameter set to the total, within the documented maximum), instead of computing
 * page numbers or offsets nobody showed it, or walking every page (the tool-call budget of a long
 * chain cannot afford a walk per listing question).
 */
export function listPages(t: WorldTemplate, path: string, indexes: readonly number[]): ListingPage[] {
  const size = t.pagination.pageSize;
  const style = t.pagination.style;
  const query = (n: string | number) =>
    style === "offset" ? `offset=0&limit=${n}` : style === "cursor" ? `limit=${n}` : `page=1&per_page=${n}`;
  const at = (i: number) => `${t.asset.plural}.${i}`;
  if (indexes.every((i) => i < size))
    return [{ url: `${path}?${query(size)}`, items: new Map(indexes.map((i) => [i, at(i)])) }];
  return [
    { url: `${path}?${query(size)}`, capture: { total: "total" }, items: new Map() },
    { url: `${path}?${query("{{total}}")}`, items: new Map(indexes.map((i) => [i, at(i)])) },
  ];
}
