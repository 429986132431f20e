import type { Requirement } from "../../bank/task-schema.js";
import { GoldenBuilder, readFromListing } from "../golden-builder.js";
import { re } from "../story-state.js";
import type { SubtaskTemplate } from "../subtask-template.js";
import {
  canaries,
  canaryAndNumber,
  canaryFromRead,
  claimTarget,
  field,
  forbidDecoys,
  listedIdUsed,
  literal,
  readCanaryAndNumber,
  reportRequirement,
  stayCanonicalRequirement,
  subtask,
} from "./common.js";
import { namesakeFirst, searchResults } from "./namesake-first.js";

/**
 * Discovery: a client reads a deprecated snapshot route. easy: the ticket points at the
 * deprecation headers and asks for the published replacement; medium: it only reports the wrong
 * value, and the agent finds out why.
 */
function deprecatedRoute(difficulty: "easy" | "medium"): SubtaskTemplate {
  return {
    id: difficulty === "easy" ? "discovery.deprecated-route" : `discovery.deprecated-route-${difficulty}`,
    axis: "discovery",
    difficulty,
    build(ctx) {
      const { built, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const { target, id } = claimTarget(ctx);
      const broken = built.routes.deprecatedAsset(id);
      const url = built.routes.asset(id);
      const [c1] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position).readSpec();
      const golden = readCanaryAndNumber(gb, a, url, c1, "c1");
      const fields = [c1.name, a.numberField.name];
      const constraints = forbidDecoys(ctx);
      const story = [
        g.opener(),
        `${g.brokenCall("GET", broken)} still works, but the ${c1.name} it shows for ${target[a.nameField]} does not match what the crew sees.`,
        difficulty === "easy"
          ? g.pick([
              "The response carries a `Deprecation: true` header.",
              "It answers with `Deprecation: true` and a Sunset date, so it is probably serving old data.",
              "There is a `Deprecation` header on every response from it.",
            ])
          : "",
      ];
      const requirements: Requirement[] = [
        {
          kind: "value_flow",
          id: "read_on_current_route",
          sentence:
            difficulty === "easy"
              ? g.pick([
                  `Find the route the current API publishes for a single ${a.noun} and read ${id} there.`,
                  `Look up the published replacement for that route and use it for ${id}.`,
                  `Work out which route is current for one ${a.noun} and read ${id} from it.`,
                ])
              : g.pick([
                  `Find out why, and get the live values for ${id}.`,
                  `Work out where the live values for ${id} come from and read them there.`,
                ]),
          brief: `Read ${id} from the current published route.`,
          predicates: [`${c1.name}_from_canonical`],
        },
        stayCanonicalRequirement(g, constraints),
        reportRequirement(g, fields),
      ];
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `A client reads ${id} from the deprecated \`${broken}\` and shows a stale ${c1.name}.`,
          ...requirements,
        ],
        golden,
        builder: gb,
        answer: canaryAndNumber(a, target, id, c1, `Live ${c1.name} of ${id}.`),
        g1: [
          canaryFromRead(
            `${c1.name}_from_canonical`,
            url,
            c1,
            "The value must come from the canonical route, not the snapshot.",
          ),
        ],
        constraints,
        probes: [{ method: "GET", url: broken, token: "fresh", status: 200 }],
      });
    },
  };
}

/**
 * Discovery: an integration reads the look-alike family built for another audience. medium: the
 * ticket only reports the symptoms; easy: it also says whom that family is for.
 */
function lookalikeFamily(difficulty: "easy" | "medium"): SubtaskTemplate {
  return {
    id: difficulty === "medium" ? "discovery.lookalike-family" : `discovery.lookalike-family-${difficulty}`,
    axis: "discovery",
    difficulty,
    build(ctx) {
      const { built, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const { target, id } = claimTarget(ctx);
      const broken = built.routes.lookalikeAsset(id);
      const url = built.routes.asset(id);
      const [, c2] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position).readSpec();
      const golden = readCanaryAndNumber(gb, a, url, c2, "c2");
      const fields = [c2.name, a.numberField.name];
      const constraints = forbidDecoys(ctx);
      const story = [
        g.opener(),
        `${g.brokenCall("GET", broken)} returns 200, but the \`${a.numberField.name}\` field is missing and the ${c2.name} differs from the ops console.`,
        difficulty === "medium"
          ? g.pick([
              "Someone copied that path from an integration guide.",
              "Nobody remembers where that path came from.",
              "It looked right in the URL, which is how it slipped through review.",
            ])
          : `That \`${t.lookalike.segment}\` family is what ${t.lookalike.audience} see, redacted and cached; it is not ours.`,
      ];
      const requirements: Requirement[] = [
        {
          kind: "value_flow",
          id: "read_on_own_family",
          sentence: g.pick([
            `Find out which family is the real one for our own operations and read ${id} from it.`,
            `Read ${id} from the route that is meant for us, not for another audience.`,
            `Use the spec to find the canonical single-${a.noun} route and read ${id}.`,
          ]),
          brief: `Read ${id} from the canonical route.`,
          predicates: [`${c2.name}_from_canonical`],
        },
        stayCanonicalRequirement(g, constraints),
        reportRequirement(g, fields),
      ];
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `An integration reads ${id} from \`${broken}\` (a look-alike route for another audience) and misses \`${a.numberField.name}\`.`,
          ...requirements,
        ],
        golden,
        builder: gb,
        answer: canaryAndNumber(a, target, id, c2, `Live ${c2.name} of ${id}.`),
        g1: [
          canaryFromRead(
            `${c2.name}_from_canonical`,
            url,
            c2,
            "The value must come from the canonical family.",
          ),
        ],
        constraints,
        probes: [{ method: "GET", url: broken, token: "fresh", status: 200 }],
      });
    },
  };
}

/**
 * Discovery: the crew knows a record by name; the path wants an id. hard: find how; medium: the
 * ticket says the listing carries the names.
 */
function byName(difficulty: "medium" | "hard"): SubtaskTemplate {
  return {
    id: difficulty === "hard" ? "discovery.find-by-name" : `discovery.find-by-name-${difficulty}`,
    axis: "discovery",
    difficulty,
    build(ctx) {
      const { built, state, grammar: g } = ctx;
      const a = built.template.asset;
      const search = built.world.archetype === "search" ? `${built.template.base}/search/${a.plural}` : null;
      // A search world ranks a near namesake ahead of the asset asked for (decoys listed first).
      const namesake = namesakeFirst(ctx);
      const target = namesake?.target ?? claimTarget(ctx).target;
      const id = state.assetId(target);
      const index = state.assets.indexOf(target);
      const name = literal(target, a.nameField);
      const [c1, c2] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position).readSpec();
      // A search world resolves the name with its documented query route, one call, taking the
      // exact match among the ranked results; elsewhere the listing is walked to the page that
      // shows it. Either source of the id is a valid one.
      if (search)
        gb.call("GET", `${search}?${a.nameField}=${encodeURIComponent(name)}`, {
          id: `${a.plural}.${searchResults(ctx, name).indexOf(target)}.${a.idField}`,
        });
      else readFromListing(gb, built.listPages([index]), { id: [index, a.idField] });
      gb.call("GET", `${built.routes.listAssets}/${gb.ref("id")}`, { c1: c1.name, c2: c2.name });
      const golden = gb.answer({ [c1.name]: "c1", [c2.name]: "c2" });
      const fields = [c1.name, c2.name];
      const constraints = forbidDecoys(ctx);
      const story = [
        g.opener(),
        g.pick([
          `The crew knows the ${a.noun} by its name alone, "${name}"; ${g.system()} tried \`GET ${built.routes.listAssets}/${encodeURIComponent(name)}\` and got ${g.quoteError(404, "not_found")}.`,
          `A request for "${name}" by name (\`GET ${built.routes.listAssets}/${encodeURIComponent(name)}\`) came back ${g.quoteError(404, "not_found")}: the path takes an id, not a name.`,
        ]),
      ];
      const requirements: Requirement[] = [
        {
          kind: "value_flow",
          id: "id_resolved",
          sentence: g.pick([
            `Find the ${a.noun}'s id through the published API and read its live record.`,
            `Resolve "${name}" to its id using the documented routes, then read it.`,
          ]),
          brief: `Resolve the ${a.noun} named "${name}" to its id through the published list route and read it.`,
          predicates: ["id_from_list_used"],
        },
      ];
      if (difficulty === "medium")
        story.push(
          search
            ? `The search route \`GET ${search}\` finds ${a.plural} by text in their \`${a.nameField}\` and shows each one's id; near namesakes match too.`
            : `The listing \`GET ${built.routes.listAssets}\` shows every ${a.noun} with its \`${a.nameField}\` and id, a page at a time.`,
        );
      requirements.push(stayCanonicalRequirement(g, constraints), reportRequirement(g, fields));
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: requirements,
        golden,
        builder: gb,
        answer: [
          field(c1.name, target[c1.name] ?? null, `Live ${c1.name} of "${name}".`),
          field(c2.name, target[c2.name] ?? null, `Live ${c2.name} of "${name}".`),
        ],
        g1: [
          listedIdUsed(
            built,
            "id_from_list_used",
            id,
            "The id must come from the published list (or search) and be used to read the record.",
            search,
          ),
          canaryFromRead(
            `${c1.name}_from_read`,
            built.routes.asset(id),
            c1,
            "The value must come from the canonical read.",
          ),
        ],
        constraints,
        probes: [
          {
            method: "GET",
            url: `${built.routes.listAssets}/${encodeURIComponent(name)}`,
            token: "fresh",
            status: 404,
            error: "not_found",
          },
        ],
      });
    },
  };
}

/**
 * Discovery, medium: a registry route needs a query parameter the spec does not document; the 400
 * it answers names the parameter and its allowed values. Find the record by name in the filtered
 * registry and report its values from there.
 */
const undocumentedParam: SubtaskTemplate = {
  id: "discovery.undocumented-param",
  axis: "discovery",
  difficulty: "medium",
  build(ctx) {
    const noun = ctx.state.claimSlot("registry");
    if (noun === null) return lookalikeFamily("medium").build(ctx);
    const { built, state, grammar: g } = ctx;
    const t = built.template;
    const a = t.asset;
    const target = state.claimAsset(ctx.rng);
    const name = literal(target, a.nameField);
    const category = literal(target, a.enumField.name);
    const url = `${t.base}/${noun}/${a.plural}`;
    const inCategory = state.assets.filter((r) => r[a.enumField.name] === category);
    const index = inCategory.indexOf(target);
    const [c1, c2] = canaries(a);
    const gb = new GoldenBuilder(built.world, ctx.position).readSpec();
    gb.call("GET", url);
    gb.call("GET", `${url}?${a.enumField.name}=${encodeURIComponent(category)}`, {
      c1: `${a.plural}.${index}.${c1.name}`,
      c2: `${a.plural}.${index}.${c2.name}`,
    });
    const golden = gb.answer({ [c1.name]: "c1", [c2.name]: "c2" });
    const fields = [c1.name, c2.name];
    const constraints = forbidDecoys(ctx);
    const story = [g.opener(), `${g.brokenCall("GET", url)}${g.gotError(400, "missing_query_parameter")}`];
    const requirements: Requirement[] = [
      {
        kind: "value_flow",
        id: "read_from_registry",
        sentence: g.pick([
          `The spec lists no parameters for it, and the ${noun} view is the only place the crew trusts for "${name}".`,
          `Nothing in the published spec says what it wants; we need "${name}" as the ${noun} shows it.`,
        ]),
        brief: `Find "${name}" in the ${noun} and read its values there.`,
        predicates: [`${c1.name}_from_${noun}`],
      },
    ];
    story.push(`"${name}" is a \`${category}\` ${a.noun}.`);
    requirements.push(stayCanonicalRequirement(g, constraints), reportRequirement(g, fields));
    return subtask(ctx, this.id, {
      story,
      requirements,
      brief: [
        `\`GET ${url}\` answers 400 ${g.code("missing_query_parameter")} (the parameter is undocumented); "${name}" is a \`${category}\` ${a.noun}.`,
        ...requirements,
      ],
      golden,
      builder: gb,
      answer: [
        field(c1.name, target[c1.name] ?? null, `${c1.description} of "${name}", from the ${noun}.`),
        field(c2.name, target[c2.name] ?? null, `${c2.description} of "${name}", from the ${noun}.`),
      ],
      g1: [
        {
          kind: "data_flow",
          id: `${c1.name}_from_${noun}`,
          explain: `The value must come from the ${noun} filtered by the undocumented parameter.`,
          from_response_url_pattern: `^${re(url)}\\?`,
          from_status: 200,
          from_body_key: `${a.plural}.${c1.name}`,
          answer_field: c1.name,
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
      ],
      constraints,
      probes: [{ method: "GET", url, token: "fresh", status: 400, error: "missing_query_parameter" }],
    });
  },
};

export const DISCOVERY_TEMPLATES: readonly SubtaskTemplate[] = [
  deprecatedRoute("easy"),
  lookalikeFamily("easy"),
  deprecatedRoute("medium"),
  lookalikeFamily("medium"),
  undocumentedParam,
  byName("medium"),
  byName("hard"),
];
