import { describe, expect, it } from "vitest";
import { SUB01, SUB02, SUB03, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { legitimateVariants } from "./legitimate-variants.js";
import { legitimateVariantFindings } from "./requirement-gates.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * Issue 21: each kind of legitimate variant, its steps pinned, on the harbour world grown by the
 * routes a variant needs (a nested create, an update sub-route, a paginated listing). The default
 * bank's tests of the same variants (abandoned-duplicate, other-route-variants) build the whole
 * bank; these stay on the skeleton so `npm run mutate` can run them for every mutant.
 */

const skeleton = bankFromContent(skeletonContent());
const task = (id: string) => structuredClone(taskOf(skeleton, id));
type Execute = Extract<GoldenStep, { op: "execute" }>;

const getVessel = HARBOR_WORLD.routes.find((r) => r.id === "getVessel") as Route;
const createOrder = HARBOR_WORLD.routes.find((r) => r.id === "createMaintenanceOrder") as Route;

/** The harbour world with extra routes (and `edit` applied). */
function harbour(extra: Route[] = [], edit: (w: World) => void = () => {}): World {
  const w = structuredClone(HARBOR_WORLD);
  w.routes.push(...structuredClone(extra));
  edit(w);
  return w;
}

/** `n` more vessels after the seeded three: V-500, V-501, … */
function moreVessels(w: World, n: number): void {
  const records = w.resources.vessels?.records ?? [];
  for (let k = 0; k < n; k++)
    records.push({
      vessel_id: `V-${500 + k}`,
      name: `Extra ${k}`,
      firmware_build: `FW-X${k}`,
      firmware_channel: "maritime-lts",
      berth: `BX-X${k}`,
      last_port_call: "Riga",
    });
}

const names = (world: World, t: Task) => legitimateVariants(world, t).map((v) => v.name);
const variant = (world: World, t: Task, name: string) => {
  const v = legitimateVariants(world, t).find((x) => x.name === name);
  if (!v) throw new Error(`no variant ${name} among ${names(world, t).join(", ")}`);
  return v;
};

const bearer = { Authorization: "Bearer {{token}}" };
const read = (url: string, capture: Record<string, string> = {}): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers: bearer },
  capture,
});

/** SUB02 (mint, read V-311 for its berth and port) reading `id` instead. */
function readsVessel(id: string): Task {
  const t = task(SUB02);
  return {
    ...t,
    golden: t.golden.map((s) =>
      s.op === "execute" && s.request.url === "/v3/vessels/V-311"
        ? { ...s, request: { ...s.request, url: `/v3/vessels/${id}` } }
        : s,
    ),
  };
}

describe("the kinds of variant the skeleton's tasks get", () => {
  it("names them in golden order, extra reads last", () => {
    expect(names(HARBOR_WORLD, task(SUB01))).toEqual(["other_route@2", "extra_reads"]);
    expect(names(HARBOR_WORLD, task(SUB02))).toEqual(["other_route@3", "extra_reads"]);
    expect(names(HARBOR_WORLD, task(SUB03))).toEqual(["other_route@2", "failed_attempt@3", "extra_reads"]);
  });

  it("failed_attempt: the write sent first without its credential header, capturing nothing", () => {
    const t = task(SUB03);
    const v = variant(HARBOR_WORLD, t, "failed_attempt@3");
    expect(v).toMatchObject({ kind: "failed_attempt", step: 3 });
    const post = t.golden[2] as Execute;
    const { Authorization: _auth, ...headers } = post.request.headers ?? {};
    expect(v.steps).toEqual([
      ...t.golden.slice(0, 2),
      { ...post, request: { ...post.request, headers }, capture: {} },
      ...t.golden.slice(2),
    ]);
    // A write on a route that needs no credential, or sent without one, has no failed attempt.
    const open = harbour([], (w) => {
      for (const r of w.routes) if (r.id === "createMaintenanceOrder") r.auth_required = false;
    });
    expect(names(open, t)).not.toContain("failed_attempt@3");
    const bare = {
      ...t,
      golden: t.golden.map((s, i) => (i === 2 ? { ...post, request: { ...post.request, headers: {} } } : s)),
    };
    expect(names(HARBOR_WORLD, bare)).not.toContain("failed_attempt@3");
    // A write to no route of the world still gets one (nothing says it needs no credential).
    const nowhere = {
      ...t,
      golden: t.golden.map((s, i) =>
        i === 2 ? { ...post, request: { ...post.request, url: "/v9/orders" } } : s,
      ),
    };
    expect(names(HARBOR_WORLD, nowhere)).toContain("failed_attempt@3");
    // A write the golden itself sent and saw fail is a failed attempt already.
    expect(legitimateVariants(HARBOR_WORLD, t, [200, 200, 400]).map((v) => v.name)).not.toContain(
      "failed_attempt@3",
    );
  });

  it("extra_reads: the listing of each collection touched and a re-read of each record read, before the answer, four at most", () => {
    const t = task(SUB03);
    const v = variant(HARBOR_WORLD, t, "extra_reads");
    const answerAt = t.golden.findIndex((s) => s.op === "answer");
    expect(v).toMatchObject({ kind: "extra_reads", step: answerAt + 1 });
    const headers = { Authorization: "Bearer {{token}}" };
    const get = (url: string) => ({ op: "execute", request: { method: "GET", url, headers }, capture: {} });
    // The maintenance orders have no listing; the order re-read is the golden's own URL.
    expect(v.steps.slice(answerAt, -1)).toEqual([
      get("/v3/vessels"),
      get("/v3/vessels/V-204"),
      get("/v3/maintenance-orders/{{order}}"),
    ]);
    expect(v.steps.at(-1)).toEqual(t.golden.at(-1));
    // Four at most, each once.
    const many: Task = {
      ...t,
      golden: [
        t.golden[0] as GoldenStep,
        ...["V-204", "V-311", "V-412", "V-204", "V-311"].map((id) => read(`/v3/vessels/${id}`)),
        { op: "answer", fields: {} },
      ],
    };
    expect(variant(HARBOR_WORLD, many, "extra_reads").steps.slice(6, -1)).toEqual([
      get("/v3/vessels"),
      get("/v3/vessels/V-204"),
      get("/v3/vessels/V-311"),
      get("/v3/vessels/V-412"),
    ]);
  });

  it("extra_reads: none without an answer step or anything to read; sent with no credential when the golden sends none", () => {
    const t = task(SUB01);
    expect(names(HARBOR_WORLD, { ...t, golden: t.golden.filter((s) => s.op !== "answer") })).not.toContain(
      "extra_reads",
    );
    // An answer first (the reads after it are the golden's own): the extra reads go before it.
    const answerFirst: Task = { ...t, golden: [t.golden.at(-1) as GoldenStep, ...t.golden.slice(0, -1)] };
    expect(variant(HARBOR_WORLD, answerFirst, "extra_reads").step).toBe(1);
    const mintOnly: Task = { ...t, golden: [t.golden[0] as GoldenStep, t.golden.at(-1) as GoldenStep] };
    expect(names(HARBOR_WORLD, mintOnly)).toEqual([]);
    const open: Task = {
      ...t,
      golden: t.golden.map((s) =>
        s.op === "execute" && s.request.method === "GET"
          ? { ...s, request: { ...s.request, headers: {} } }
          : s,
      ),
    };
    const v = variant(HARBOR_WORLD, open, "extra_reads");
    expect(
      v.steps
        .filter(
          (s) =>
            s.op === "execute" &&
            s.capture &&
            Object.keys(s.capture).length === 0 &&
            s.request.method === "GET",
        )
        .map((s) => s.op === "execute" && s.request.headers),
    ).toEqual([{}, {}]);
  });

  it("extra_reads: no re-read of a decoy, of a record on a route that counts its calls, nor a listing that is not plain", () => {
    const t = task(SUB01);
    const throttled = harbour([], (w) => {
      for (const r of w.routes) if (r.id === "getVessel") r.throttle = { on_call: 5 };
      for (const r of w.routes)
        if (r.id === "listVessels") r.view = { ...r.view, where: { firmware_channel: "maritime-lts" } };
    });
    expect(names(throttled, t)).not.toContain("extra_reads");
    const decoy: Task = {
      ...t,
      golden: t.golden.map((s) =>
        s.op === "execute" && s.request.url === "/v3/vessels/V-204"
          ? { ...s, request: { ...s.request, url: "/v2/vessels/V-204" } }
          : s,
      ),
    };
    expect(names(HARBOR_WORLD, decoy)).not.toContain("extra_reads");
  });
});

describe("other_route: a record read through its collection's listing", () => {
  it("the first page when the record is on it, its values captured from its item", () => {
    const t = readsVessel("V-412");
    const v = variant(HARBOR_WORLD, t, "other_route@3");
    expect(v).toMatchObject({ kind: "other_route", step: 3 });
    const golden = t.golden[2] as Execute;
    expect(v.steps).toEqual([
      ...t.golden.slice(0, 2),
      {
        ...golden,
        request: { ...golden.request, url: "/v3/vessels" },
        capture: { berth: "vessels.2.berth", port: "vessels.2.last_port_call" },
      },
      ...t.golden.slice(3),
    ]);
  });

  const paged = (style: "cursor" | "page" | "offset" | "link", pageSize?: number) =>
    harbour([], (w) => {
      moreVessels(w, 6);
      for (const r of w.routes)
        if (r.id === "listVessels") r.pagination = { style, page_size: pageSize ?? 2, max_page_size: 3 };
    });

  it("page and link listings: the page holding it at the largest page size", () => {
    // V-503 is the 7th vessel (index 6): page 3 of 3, item 0.
    const t = readsVessel("V-503");
    for (const style of ["page", "link"] as const) {
      const steps = variant(paged(style), t, "other_route@3").steps;
      expect(steps[2]).toMatchObject({
        request: { url: "/v3/vessels?page=3&per_page=3" },
        capture: { berth: "vessels.0.berth" },
      });
      expect(steps).toHaveLength(t.golden.length);
    }
    // On the first page at the default size: no query.
    const first = variant(paged("page"), readsVessel("V-311"), "other_route@3").steps[2];
    expect(first).toMatchObject({ request: { url: "/v3/vessels" }, capture: { berth: "vessels.1.berth" } });
  });

  it("offset listings: the offset of the page holding it", () => {
    const steps = variant(paged("offset"), readsVessel("V-502"), "other_route@3").steps;
    // Index 5: offset 3, item 2.
    expect(steps[2]).toMatchObject({
      request: { url: "/v3/vessels?offset=3&limit=3" },
      capture: { port: "vessels.2.last_port_call" },
    });
  });

  it("cursor listings: walked page by page, each request sending the cursor the one before answered", () => {
    const steps = variant(paged("cursor"), readsVessel("V-504"), "other_route@3").steps;
    // Index 7: page 2 (0-based) of size 3, item 1.
    const walk = steps.slice(2, 5);
    expect(walk).toEqual([
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels?limit=3", headers: bearer },
        capture: { berth__cursor1: "next_cursor" },
      },
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels?limit=3&cursor={{berth__cursor1}}", headers: bearer },
        capture: { berth__cursor2: "next_cursor" },
      },
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels?limit=3&cursor={{berth__cursor2}}", headers: bearer },
        capture: { berth: "vessels.1.berth", port: "vessels.1.last_port_call" },
      },
    ]);
    expect(steps).toHaveLength(t2len(readsVessel("V-504")) + 2);
  });

  it("the default page sizes when the listing states none", () => {
    const w = harbour([], (x) => {
      moreVessels(x, 110);
      for (const r of x.routes) if (r.id === "listVessels") r.pagination = { style: "page" };
    });
    // Index 12 is past the default first page (10), on page 1 of the default largest size (100).
    expect(variant(w, readsVessel("V-509"), "other_route@3").steps[2]).toMatchObject({
      request: { url: "/v3/vessels?page=1&per_page=100" },
      capture: { berth: "vessels.12.berth" },
    });
    expect(variant(w, readsVessel("V-609"), "other_route@3").steps[2]).toMatchObject({
      request: { url: "/v3/vessels?page=2&per_page=100" },
      capture: { berth: "vessels.12.berth" },
    });
  });

  it("counts a record deleted before the read out of the list; gives up when the deleted id is not known", () => {
    const deleteRoute: Route = { ...getVessel, id: "deleteVessel", method: "DELETE", action: "delete" };
    const w = harbour([deleteRoute]);
    const del = (url: string): Execute => ({
      op: "execute",
      request: { method: "DELETE", url, headers: bearer },
      capture: {},
    });
    const t = readsVessel("V-412");
    const after: Task = {
      ...t,
      golden: [
        t.golden[0] as GoldenStep,
        t.golden[1] as GoldenStep,
        del("/v3/vessels/V-204"),
        ...t.golden.slice(2),
      ],
    };
    expect(variant(w, after, "other_route@4").steps[3]).toMatchObject({
      capture: { berth: "vessels.1.berth" },
    });
    // Deleted in the task's setup: the same.
    expect(variant(w, { ...t, setup: [del("/v3/vessels/V-311")] }, "other_route@3").steps[2]).toMatchObject({
      capture: { berth: "vessels.1.berth" },
    });
    // Another resource's delete, and a delete on no route, move nothing.
    const orderDelete: Route = {
      ...createOrder,
      id: "deleteOrder",
      method: "DELETE",
      action: "delete",
      path: "/v3/maintenance-orders/{order_id}",
    };
    const w2 = harbour([deleteRoute, orderDelete]);
    expect(
      variant(
        w2,
        { ...t, setup: [del("/v3/maintenance-orders/MO-1"), del("/nowhere/1"), read("/v3/vessels/V-204")] },
        "other_route@3",
      ).steps[2],
    ).toMatchObject({
      capture: { berth: "vessels.2.berth" },
    });
    const unknown: Task = { ...t, setup: [del("/v3/vessels/{{gone}}")] };
    expect(names(w, unknown)).not.toContain("other_route@3");
    // The deleted record itself, read after: not in the list, no variant.
    expect(names(w, { ...t, setup: [del("/v3/vessels/V-412")] })).not.toContain("other_route@3");
  });

  it("not for a record named by a placeholder, unseeded, or a read that captures nothing", () => {
    expect(names(HARBOR_WORLD, readsVessel("{{vessel}}"))).not.toContain("other_route@3");
    expect(names(HARBOR_WORLD, readsVessel("V-999"))).not.toContain("other_route@3");
    const t = readsVessel("V-412");
    const blind = {
      ...t,
      golden: t.golden.map((s, i) => (i === 2 && s.op === "execute" ? { ...s, capture: {} } : s)),
    };
    expect(names(HARBOR_WORLD, blind)).not.toContain("other_route@3");
  });

  it("not from a route with a scope, a query parameter, a view that hides or rewrites, or concurrency", () => {
    const t = readsVessel("V-412");
    const edits: Array<(r: Route) => void> = [
      (r) => {
        r.scopes = ["vessels:read"];
      },
      (r) => {
        r.query_params = [{ name: "fields", required: false } as NonNullable<Route["query_params"]>[number]];
      },
      (r) => {
        r.view = { ...r.view, omit_fields: ["name"] };
      },
      (r) => {
        r.view = { ...r.view, overrides: { name: "x" } };
      },
      (r) => {
        r.view = { ...r.view, where: { firmware_channel: "maritime-lts" } };
      },
      (r) => {
        r.concurrency = { mode: "etag" };
      },
      (r) => {
        r.throttle = { on_call: 9 };
      },
    ];
    for (const edit of edits) {
      const w = harbour([], (x) => {
        for (const r of x.routes) if (r.id === "getVessel") edit(r);
      });
      expect(names(w, t), JSON.stringify(w.routes.find((r) => r.id === "getVessel"))).not.toContain(
        "other_route@3",
      );
    }
    // Nor to a listing whose view hides or rewrites fields, or that is not plain (a throttle, a required parameter).
    const listEdits: Array<(r: Route) => void> = [
      (r) => {
        r.view = { ...r.view, omit_fields: ["name"] };
      },
      (r) => {
        r.view = { ...r.view, overrides: { name: "x" } };
      },
      (r) => {
        r.throttle = { on_call: 9 };
      },
      (r) => {
        r.transient = { on_call: 1 } as Route["transient"];
      },
      (r) => {
        r.query_params = [{ name: "q", required: true } as NonNullable<Route["query_params"]>[number]];
      },
      (r) => {
        r.status = "deprecated";
      },
      (r) => {
        r.path = "/v3/harbours/{h}/vessels";
      },
    ];
    for (const edit of listEdits) {
      const w = harbour([], (x) => {
        for (const r of x.routes) if (r.id === "listVessels") edit(r);
      });
      expect(names(w, t), JSON.stringify(w.routes.find((r) => r.id === "listVessels"))).not.toContain(
        "other_route@3",
      );
    }
    // A listing with an optional parameter is still plain.
    const optional = harbour([], (x) => {
      for (const r of x.routes)
        if (r.id === "listVessels")
          r.query_params = [{ name: "q", required: false } as NonNullable<Route["query_params"]>[number]];
    });
    expect(names(optional, t)).toContain("other_route@3");
  });
});

function t2len(t: Task): number {
  return t.golden.length;
}

describe("other_route: a create sent to the parent's nested create", () => {
  const nested: Route = {
    ...createOrder,
    id: "createVesselOrder",
    path: "/v3/vessels/{vessel_id}/maintenance-orders",
  };

  /** SUB03 whose call check does not hold the vessel in the body. */
  function unheld(): Task {
    const t = task(SUB03);
    return {
      ...t,
      grader: {
        ...t.grader,
        g1: t.grader.g1.map((p) => (p.kind === "call" && p.sent ? { ...p, sent: { priority: "high" } } : p)),
      },
    };
  }

  it("names the parent in the path, not the body: the same record", () => {
    const t = unheld();
    const v = variant(harbour([nested]), t, "other_route@3");
    const post = t.golden[2] as Execute;
    expect(v.steps).toEqual([
      ...t.golden.slice(0, 2),
      {
        ...post,
        request: {
          ...post.request,
          url: "/v3/vessels/V-204/maintenance-orders",
          body: { priority: "high", firmware_build: "{{firmware}}" },
        },
      },
      ...t.golden.slice(3),
    ]);
  });

  it("not when a call check holds the parent in the body (any case of method), nor for a placeholder parent", () => {
    expect(names(harbour([nested]), task(SUB03))).not.toContain("other_route@3");
    const lower = task(SUB03);
    lower.grader.g1 = lower.grader.g1.map((p) =>
      p.kind === "call" && p.sent ? { ...p, method: "post" } : p,
    );
    expect(names(harbour([nested]), lower)).not.toContain("other_route@3");
    // A check of another method, or of another URL, does not hold it.
    for (const edit of [{ method: "PUT" }, { url_pattern: "^/v3/other$" }]) {
      const other = task(SUB03);
      other.grader.g1 = other.grader.g1.map((p) => (p.kind === "call" && p.sent ? { ...p, ...edit } : p));
      expect(names(harbour([nested]), other), JSON.stringify(edit)).toContain("other_route@3");
    }
    const t = unheld();
    const placeholder = {
      ...t,
      golden: t.golden.map((s, i) =>
        i === 2 && s.op === "execute"
          ? { ...s, request: { ...s.request, body: { vessel_id: "{{v}}", priority: "high" } } }
          : s,
      ),
    };
    expect(names(harbour([nested]), placeholder)).not.toContain("other_route@3");
    const missing = {
      ...t,
      golden: t.golden.map((s, i) =>
        i === 2 && s.op === "execute" ? { ...s, request: { ...s.request, body: { priority: "high" } } } : s,
      ),
    };
    expect(names(harbour([nested]), missing)).not.toContain("other_route@3");
  });

  it("only between plain canonical POST creates of the same resource with one path parameter", () => {
    const t = unheld();
    const bad: Array<Partial<Route>> = [
      { status: "deprecated" },
      { method: "PUT" },
      { action: "update" },
      { resource: "vessels" },
      { scopes: ["orders:write"] },
      { validator: { required: ["priority"] } as unknown as Route["validator"] },
      { async_job: { poll_path: "/v3/jobs/{job_id}" } },
      { throttle: { on_call: 2 } },
      { path: "/v3/harbours/{h}/vessels/{vessel_id}/maintenance-orders" },
      { path: "/v3/vessel-orders" },
    ];
    for (const edit of bad)
      expect(names(harbour([{ ...nested, ...edit }]), t), JSON.stringify(edit)).not.toContain(
        "other_route@3",
      );
    // From a create that is not plain either.
    const fromBad: Array<(r: Route) => void> = [
      (r) => {
        r.scopes = ["x"];
      },
      (r) => {
        r.async_job = { poll_path: "/v3/jobs/{job_id}" };
      },
      (r) => {
        r.throttle = { on_call: 3 };
      },
      (r) => {
        r.validator = { required: ["priority"] } as unknown as Route["validator"];
      },
    ];
    for (const edit of fromBad) {
      const w = harbour([nested], (x) => {
        for (const r of x.routes) if (r.id === "createMaintenanceOrder") edit(r);
      });
      expect(names(w, t)).not.toContain("other_route@3");
    }
  });
});

describe("other_route: an update sent through the record's update sub-route", () => {
  const update: Route = { ...getVessel, id: "updateVessel", method: "PATCH", action: "update" };
  const settings: Route = {
    ...getVessel,
    id: "putSettings",
    method: "PUT",
    action: "update",
    path: "/v3/vessels/{vessel_id}/settings",
  };
  const readSettings: Route = { ...getVessel, id: "getSettings", path: "/v3/vessels/{vessel_id}/settings" };

  /** SUB01 with an update of V-204's channel before the answer. */
  function updating(url = "/v3/vessels/V-204"): Task {
    const t = task(SUB01);
    const patch: Execute = {
      op: "execute",
      request: {
        method: "PATCH",
        url,
        headers: { ...bearer, "Content-Type": "application/json" },
        body: { firmware_channel: "maritime-edge" },
      },
      capture: { channel: "firmware_channel" },
    };
    return { ...t, golden: [...t.golden.slice(0, 2), patch, ...t.golden.slice(2)] };
  }

  it("a plain sub-route: the same body sent there, the captures kept", () => {
    const t = updating();
    const v = variant(harbour([update, settings]), t, "other_route@3");
    const patch = t.golden[2] as Execute;
    expect(v.steps).toEqual([
      ...t.golden.slice(0, 2),
      { ...patch, request: { ...patch.request, method: "PUT", url: "/v3/vessels/V-204/settings" } },
      ...t.golden.slice(3),
    ]);
  });

  it("a sub-route with body versions: read, write, read again, write again; only the last write captures", () => {
    const t = updating();
    const versioned = { ...settings, concurrency: { mode: "body" as const } };
    const v = variant(harbour([update, versioned, readSettings]), t, "other_route@3");
    const headers = { Authorization: "Bearer {{token}}" };
    const url = "/v3/vessels/V-204/settings";
    const write = (n: number, capture: Record<string, string>) => ({
      op: "execute",
      request: {
        method: "PUT",
        url,
        headers: { ...headers, "Content-Type": "application/json" },
        body: { firmware_channel: "maritime-edge", version: `{{version_2_${n}}}` },
      },
      capture,
    });
    const get = (n: number) => ({
      op: "execute",
      request: { method: "GET", url, headers },
      capture: { [`version_2_${n}`]: "version" },
    });
    expect(v.steps.slice(2, 6)).toEqual([
      get(1),
      write(1, {}),
      get(2),
      write(2, { channel: "firmware_channel" }),
    ]);
    expect(v.steps).toHaveLength(t.golden.length + 3);
    // Versions in an etag, or no route to read them from: no variant through it.
    const etag = { ...settings, concurrency: { mode: "etag" as const } };
    expect(names(harbour([update, etag, readSettings]), t)).not.toContain("other_route@3");
    expect(names(harbour([update, versioned]), t)).not.toContain("other_route@3");
  });

  it("not from an update with concurrency or a behaviour, on a placeholder record, or with no body", () => {
    const w = harbour([update, settings]);
    expect(names(w, updating("/v3/vessels/{{vessel}}"))).not.toContain("other_route@3");
    const noBody = updating();
    const patch = noBody.golden[2] as Execute;
    const { body: _b, ...request } = patch.request;
    expect(
      names(w, { ...noBody, golden: noBody.golden.map((s, i) => (i === 2 ? { ...patch, request } : s)) }),
    ).not.toContain("other_route@3");
    for (const edit of [
      { concurrency: { mode: "etag" as const } },
      { scopes: ["x"] },
      { throttle: { on_call: 4 } },
      { status: "deprecated" as const },
    ]) {
      const from = harbour([{ ...update, ...edit }, settings]);
      expect(names(from, updating()), JSON.stringify(edit)).not.toContain("other_route@3");
    }
  });

  it("only to a canonical PUT or PATCH sub-route of the record's own path, with no other parameter and no behaviour", () => {
    const t = updating();
    const bad: Array<Partial<Route>> = [
      { method: "POST" },
      { status: "deprecated" },
      { action: "create" },
      { resource: "maintenance-orders" },
      { path: "/v3/vessels/{vessel_id}/settings/{k}" },
      { path: "/v3/fleet/{vessel_id}/settings" },
      { path: "/v3/vessels/{other}/settings" },
      { partial_write: { on_call: 1 } },
      { transient: { on_call: 1 } as Route["transient"] },
      { validator: { required: ["x"] } as unknown as Route["validator"] },
    ];
    for (const edit of bad)
      expect(names(harbour([update, { ...settings, ...edit }]), t), JSON.stringify(edit)).not.toContain(
        "other_route@3",
      );
    expect(names(harbour([update, { ...settings, method: "PATCH" }]), t)).toContain("other_route@3");
  });
});

describe("reorder: two adjacent independent steps swapped", () => {
  it("two reads of different records, neither needing the other", () => {
    const t = task(SUB01);
    const two: Task = {
      ...t,
      golden: [
        t.golden[0] as GoldenStep,
        read("/v3/vessels/V-204", { a: "berth" }),
        read("/v3/vessels/V-311", { b: "berth" }),
        { op: "answer", fields: {} },
      ],
    };
    const v = variant(HARBOR_WORLD, two, "reorder@2");
    expect(v).toMatchObject({ kind: "reorder", step: 2 });
    expect(v.steps).toEqual([two.golden[0], two.golden[2], two.golden[1], two.golden[3]]);
  });

  it("not when one uses what the other captured, both capture the same name, or one is the token", () => {
    const t = task(SUB01);
    const build = (a: Execute, b: Execute): Task => ({
      ...t,
      golden: [t.golden[0] as GoldenStep, a, b, { op: "answer", fields: {} }],
    });
    expect(
      names(HARBOR_WORLD, build(read("/v3/vessels/V-204", { v: "vessel_id" }), read("/v3/vessels/{{v}}"))),
    ).not.toContain("reorder@2");
    expect(
      names(
        HARBOR_WORLD,
        build(read("/v3/vessels/V-204", { v: "berth" }), read("/v3/vessels/V-311", { v: "berth" })),
      ),
    ).not.toContain("reorder@2");
    expect(names(HARBOR_WORLD, t)).not.toContain("reorder@1");
    // A read on no route, a job route, a wait header, or a route that counts calls: not moved.
    expect(
      names(HARBOR_WORLD, build(read("/v3/vessels/V-204", { a: "berth" }), read("/v9/x", { b: "berth" }))),
    ).not.toContain("reorder@2");
    const wait = read("/v3/vessels/V-311", { b: "berth" });
    wait.request.headers = { ...wait.request.headers, "X-Apiflow-Wait": "4" };
    expect(names(HARBOR_WORLD, build(read("/v3/vessels/V-204", { a: "berth" }), wait))).not.toContain(
      "reorder@2",
    );
    expect(names(HARBOR_WORLD, build(wait, read("/v3/vessels/V-204", { a: "berth" })))).not.toContain(
      "reorder@2",
    );
    const throttled = harbour([], (w) => {
      for (const r of w.routes) if (r.id === "getVessel") r.throttle = { on_call: 9 };
    });
    expect(
      names(
        throttled,
        build(read("/v3/vessels/V-204", { a: "berth" }), read("/v3/vessels/V-311", { b: "berth" })),
      ),
    ).not.toContain("reorder@2");
  });

  it("a write and a read: only of different collections; never two writes", () => {
    const t = task(SUB03);
    // SUB03's create, then a vessel read that needs nothing from it: another collection, swapped.
    const post = t.golden[2] as Execute;
    const freeze = (p: Execute): Execute => ({
      ...p,
      request: { ...p.request, body: { vessel_id: "V-204", priority: "high", firmware_build: "FW-1" } },
    });
    const base = (a: Execute, b: Execute): Task => ({
      ...t,
      golden: [t.golden[0] as GoldenStep, a, b, { op: "answer", fields: {} }],
    });
    expect(names(HARBOR_WORLD, base(freeze(post), read("/v3/vessels/V-311", { b: "berth" })))).toContain(
      "reorder@2",
    );
    expect(names(HARBOR_WORLD, base(read("/v3/vessels/V-311", { b: "berth" }), freeze(post)))).toContain(
      "reorder@2",
    );
    expect(
      names(HARBOR_WORLD, base(freeze(post), read("/v3/maintenance-orders/MO-1", { b: "status" }))),
    ).not.toContain("reorder@2");
    expect(names(HARBOR_WORLD, base(freeze(post), { ...freeze(post), capture: {} }))).not.toContain(
      "reorder@2",
    );
  });
});

describe("abandoned_job: another submit of the same job, never confirmed", () => {
  const jobs = (confirm: boolean): World =>
    harbour(
      [
        {
          ...getVessel,
          id: "getJob",
          path: "/v3/jobs/{job_id}",
          resource: "maintenance-orders",
          action: "job_status",
        },
        { ...createOrder, id: "confirmJob", path: "/v3/jobs/{job_id}/confirm", action: "job_confirm" },
      ],
      (w) => {
        for (const r of w.routes)
          if (r.id === "createMaintenanceOrder") r.async_job = { poll_path: "/v3/jobs/{job_id}", confirm };
      },
    );

  function submitting(): Task {
    const t = task(SUB03);
    const post = t.golden[2] as Execute;
    const submit: Execute = { ...post, capture: { job: "job_id" } };
    const poll = read("/v3/jobs/{{job}}", { state: "status" });
    const confirm: Execute = {
      op: "execute",
      request: { method: "POST", url: "/v3/jobs/{{job}}/confirm", headers: bearer },
      capture: { order: "result.order_id" },
    };
    return {
      ...t,
      golden: [
        ...t.golden.slice(0, 2),
        submit,
        poll,
        poll,
        confirm,
        { op: "answer", fields: { order_id: "order" } },
      ],
    };
  }

  it("followed by the golden's polls of it when the job waits for a confirmation", () => {
    const t = submitting();
    const v = variant(jobs(true), t, "abandoned_job@3");
    expect(v).toMatchObject({ kind: "abandoned_job", step: 3 });
    const submit = t.golden[2] as Execute;
    const poll = (): Execute => ({ ...read("/v3/jobs/{{job__abandoned}}"), capture: {} });
    expect(v.steps).toEqual([
      ...t.golden.slice(0, 2),
      { ...submit, capture: { job__abandoned: "job_id" } },
      poll(),
      poll(),
      ...t.golden.slice(2),
    ]);
  });

  it("only submitted when the job needs no confirmation (a poll would commit it), or the golden never polls it", () => {
    const t = submitting();
    const submit = t.golden[2] as Execute;
    expect(variant(jobs(false), t, "abandoned_job@3").steps.slice(2, 4)).toEqual([
      { ...submit, capture: {} },
      submit,
    ]);
    const unpolled = {
      ...t,
      golden: t.golden.filter((s) => !(s.op === "execute" && s.request.url === "/v3/jobs/{{job}}")),
    };
    expect(variant(jobs(true), unpolled, "abandoned_job@3").steps.slice(2, 4)).toEqual([
      { ...submit, capture: {} },
      submit,
    ]);
  });

  it("follows only the polls after the submit it repeats", () => {
    const t = submitting();
    const submit = t.golden[2] as Execute;
    const poll = read("/v3/jobs/{{job}}", { state: "status" });
    // An earlier submit and poll of the same binding name (another job, before this one).
    const twice: Task = { ...t, golden: [...t.golden.slice(0, 2), submit, poll, ...t.golden.slice(2)] };
    const v = variant(jobs(true), twice, "abandoned_job@5");
    const abandoned = v.steps.slice(4, 7);
    expect(abandoned).toEqual([
      { ...submit, capture: { job__abandoned: "job_id" } },
      { ...read("/v3/jobs/{{job__abandoned}}"), capture: {} },
      { ...read("/v3/jobs/{{job__abandoned}}"), capture: {} },
    ]);
    expect(v.steps[7]).toEqual(submit);
  });

  it("not for a submit on a route that counts its calls", () => {
    const w = jobs(true);
    for (const r of w.routes) if (r.id === "createMaintenanceOrder") r.throttle = { on_call: 7 };
    expect(names(w, submitting())).not.toContain("abandoned_job@3");
  });
});

describe("a chain varies its last segment only, and keeps the reads its flows pin", () => {
  /** The chain without segment 1's check that the minted token went on V-204's read (a header slot). */
  const unpinned = (): Task => {
    const chain = task("harbor-telemetry-chain-1to03");
    return {
      ...chain,
      grader: { ...chain.grader, g1: chain.grader.g1.filter((p) => p.id !== "minted_token_used") },
    };
  };

  it("the chain's variants are its last segment's", () => {
    const chain = unpinned();
    const ns = names(HARBOR_WORLD, chain);
    // Segment 3 starts at golden step 6: its read of V-204 is step 7, its create step 8.
    expect(ns).toEqual(["other_route@7", "failed_attempt@8", "extra_reads"]);
  });

  it("re-reads only what the last segment read", () => {
    const v = variant(HARBOR_WORLD, unpinned(), "extra_reads");
    const urls = v.steps.flatMap((s) =>
      s.op === "execute" && Object.keys(s.capture).length === 0 && s.request.method === "GET"
        ? [s.request.url]
        : [],
    );
    expect(urls).toEqual(["/v3/vessels", "/v3/vessels/V-204", "/v3/maintenance-orders/{{order}}"]);
  });

  it("keeps a read a flow needs a token on, or reads its value from with no other source", () => {
    expect(names(HARBOR_WORLD, task("harbor-telemetry-chain-1to03"))).not.toContain("other_route@7");
    const chain = unpinned();
    const pinned: Task = {
      ...chain,
      grader: {
        ...chain.grader,
        g1: chain.grader.g1.map((p) =>
          p.kind === "data_flow" && p.id === "firmware_carried_into_order"
            ? (({ also_from: _a, ...rest }) => rest)(p)
            : p,
        ),
      },
    };
    expect(names(HARBOR_WORLD, pinned)).not.toContain("other_route@7");
    const tokenOn: Task = {
      ...chain,
      grader: {
        ...chain.grader,
        g1: [
          ...chain.grader.g1,
          {
            kind: "data_flow",
            id: "token_on_read",
            explain: "",
            from_response_url_pattern: "^/v3/oauth/token$",
            from_status: 200,
            from_body_key: "access_token",
            must_be_stored: false,
            used_in_request_url_pattern: "^/v3/vessels/V-204$",
            used_in_slot: { in: "header", name: "authorization" },
          },
        ],
      },
    };
    expect(names(HARBOR_WORLD, tokenOn)).not.toContain("other_route@7");
    // A header slot on another URL, a body slot, or an invalid pattern keeps nothing.
    for (const [pattern, slot] of [
      ["^/v3/maintenance-orders$", { in: "header", name: "authorization" }],
      ["^/v3/vessels/V-204$", { in: "body", key: "x" }],
      ["(", { in: "header", name: "authorization" }],
    ] as const) {
      const t: Task = {
        ...chain,
        grader: {
          ...chain.grader,
          g1: [
            ...chain.grader.g1,
            {
              ...(tokenOn.grader.g1.at(-1) as Task["grader"]["g1"][number]),
              used_in_request_url_pattern: pattern,
              used_in_slot: slot,
            } as Task["grader"]["g1"][number],
          ],
        },
      };
      expect(names(HARBOR_WORLD, t), pattern).toContain("other_route@7");
    }
  });
});

describe("the variants played through the gate", () => {
  it("a record read off a cursor listing's later page passes; a create through the parent fails a grader that knows the flat create only", async () => {
    const world = harbour(
      [{ ...createOrder, id: "createVesselOrder", path: "/v3/vessels/{vessel_id}/maintenance-orders" }],
      (w) => {
        moreVessels(w, 6);
        for (const r of w.routes)
          if (r.id === "listVessels") r.pagination = { style: "cursor", page_size: 2, max_page_size: 2 };
      },
    );
    const content = skeletonContent();
    const t2 = readsVessel("V-503");
    const sub03 = task(SUB03);
    const tasks = content.tasks.map((t) => {
      if (t.id === SUB02)
        return {
          ...t2,
          grader: {
            ...t2.grader,
            answer: t2.grader.answer.map((f) =>
              f.field === "berth"
                ? { ...f, expected: "BX-X3" }
                : f.field === "last_port_call"
                  ? { ...f, expected: "Riga" }
                  : f,
            ),
            g1: [
              {
                kind: "call" as const,
                id: "read",
                explain: "",
                url_pattern: "^/v3/vessels",
                status: 200,
                body_has_keys: [],
              },
            ],
          },
        };
      if (t.id === SUB03)
        return {
          ...sub03,
          grader: {
            ...sub03.grader,
            g1: sub03.grader.g1.map((p) =>
              p.kind === "call" && p.sent ? { ...p, sent: { priority: "high" } } : p,
            ),
          },
        };
      return t;
    });
    const bank = bankFromContent({ ...content, worlds: [world], tasks });
    expect(names(world, taskOf(bank, SUB02))).toContain("other_route@3");
    expect(names(world, taskOf(bank, SUB03))).toContain("other_route@3");
    expect(await legitimateVariantFindings(bank, taskOf(bank, SUB02), sharedTrials(bank))).toEqual([]);
    // The skeleton's order grader knows the flat create only: the gate catches it.
    const findings = await legitimateVariantFindings(bank, taskOf(bank, SUB03), sharedTrials(bank));
    expect(findings.map((f) => f.check)).toEqual(["false_fail:other_route"]);
    expect(findings[0]?.message).toMatch(
      /^legitimate variant other_route@3 fails: .*order_id_stored_and_reused/,
    );
  });
});
