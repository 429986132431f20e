import type { Route } from "../../bank/world-schema.js";
import type { WorldTemplate } from "../world-template.js";
import { createLike, idPart, route, type WorldPaths } from "./route-kit.js";

/** Async creation: a create that answers 202 + Location, the job to poll, and its confirm. */
export function jobRoutes(t: WorldTemplate, p: WorldPaths): Route[] {
  const w = t.work;
  return [
    route({
      ...createLike(t),
      id: `create_${idPart(w.noun)}_async`,
      path: `${p.work}/async`,
      summary: `Open a ${w.noun} as an async job: answers 202 with a Location to poll; confirm the job when it is awaiting_confirmation`,
      async_job: {
        poll_path: `${p.jobs}/{job_id}`,
        pending_seconds: 2,
        confirm: true,
        result_path: `${p.work}/{id}`,
      },
    }),
    route({
      id: `get_${idPart(w.noun)}_job`,
      method: "GET",
      path: `${p.jobs}/{job_id}`,
      summary: `Poll an async ${w.noun} job`,
      resource: w.plural,
      action: "job_status",
    }),
    route({
      id: `confirm_${idPart(w.noun)}_job`,
      method: "POST",
      path: `${p.jobs}/{job_id}/confirm`,
      summary: `Confirm an async ${w.noun} job that is awaiting_confirmation (writes the record)`,
      resource: w.plural,
      action: "job_confirm",
    }),
  ];
}
