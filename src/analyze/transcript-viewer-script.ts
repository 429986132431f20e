/**
 * The transcript viewer of the HTML report, as browser JavaScript (inlined in the page; there is
 * no bundler at report time). It reads the trial index from `#trial-index`, lists trials with
 * filters, and opens one transcript on demand: from an embedded gzip blob when the page carries
 * the transcripts (small runs), else by fetching it (when `apiflow view` serves the page), else
 * by linking to the file. Beside the transcript it shows the verdict's evidence, predicate by
 * predicate, from the trial's stored event log. Everything the data says goes in through
 * `textContent`, never as HTML.
 */
export const TRANSCRIPT_VIEWER_SCRIPT = String.raw`
(() => {
  const index = JSON.parse(document.getElementById("trial-index").textContent);
  const $ = (tag, attrs = {}, ...kids) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") el.textContent = v;
      else if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
      else el.setAttribute(k, v);
    }
    for (const kid of kids) if (kid) el.append(kid);
    return el;
  };
  const list = document.getElementById("trial-list");
  const pane = document.getElementById("transcript");
  const fModel = document.getElementById("filter-model");
  const fOutcome = document.getElementById("filter-outcome");
  const fTask = document.getElementById("filter-task");
  for (const a of index.agents) fModel.append($("option", { value: a, text: a }));
  for (const o of index.outcomes) fOutcome.append($("option", { value: o, text: o }));
  const LIMIT = 200;

  function rows() {
    const m = fModel.value, o = fOutcome.value, t = fTask.value.trim();
    const out = [];
    for (let i = 0; i < index.rows.length && out.length < LIMIT; i++) {
      const r = index.rows[i];
      if (m && index.agents[r[0]] !== m) continue;
      if (o && index.outcomes[r[3]] !== o) continue;
      if (t && !index.tasks[r[1]].includes(t)) continue;
      out.push(i);
    }
    return out;
  }
  function renderList() {
    list.replaceChildren();
    const shown = rows();
    for (const i of shown) {
      const r = index.rows[i];
      const outcome = index.outcomes[r[3]];
      list.append(
        $("li", {},
          $("button", { type: "button", class: "trial " + outcome, "data-trial": String(i), on: { click: () => open(i) } },
            $("span", { class: "agent", text: index.agents[r[0]] }),
            $("span", { class: "task", text: index.tasks[r[1]] + " t" + r[2] }),
            $("span", { class: "outcome", text: outcome }))));
    }
    document.getElementById("trial-count").textContent =
      shown.length >= LIMIT ? "first " + LIMIT + " matches" : shown.length + " trials";
  }

  async function load(i) {
    const r = index.rows[i];
    const blob = document.getElementById("tx-" + i);
    if (blob) {
      const bytes = Uint8Array.from(atob(blob.textContent.trim()), (c) => c.charCodeAt(0));
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      return JSON.parse(await new Response(stream).text());
    }
    if (r[4] === null) throw new Error("this trial has no transcript");
    const path = index.paths[r[4]];
    const url = index.bases[r[5]] + path;
    if (location.protocol === "file:") {
      const err = new Error("transcripts are not embedded in this page; open the file or use apiflow view");
      err.url = path.startsWith("/") ? "file://" + path : url;
      throw err;
    }
    const res = await fetch(url);
    if (!res.ok) throw new Error("HTTP " + res.status + " for " + url);
    return res.json();
  }

  // The verdict's evidence from the stored event log: embedded beside the transcript, or served by
  // apiflow view as <transcript>.explain.json; null when the trial has no stored log.
  async function loadEvidence(i) {
    const embedded = document.getElementById("ev-" + i);
    if (embedded) return JSON.parse(embedded.textContent);
    const r = index.rows[i];
    if (r[4] === null || location.protocol === "file:") return null;
    try {
      const res = await fetch(index.bases[r[5]] + index.paths[r[4]] + ".explain.json");
      return res.ok ? await res.json() : null;
    } catch {
      return null;
    }
  }
  function evidencePane(ex) {
    const box = $("div", { class: "evidence" }, $("h4", { text: "Evidence from the event log" }));
    if (!ex) {
      box.append($("p", { text: "No stored event log for this trial (run before logs were kept)." }));
      return box;
    }
    box.append($("p", { text: (ex.passed ? "PASS" : "FAIL") + " · " + ex.events + " events" + (ex.card_found ? "" : " · no answer card") }));
    const list = $("ol", { class: "predicates" });
    for (const p of ex.predicates) {
      const mark = p.group === "checkpoint" ? (p.passed ? "•" : "◦") : p.passed ? "✓" : "✗";
      const li = $("li", { class: "predicate " + (p.passed ? "ok" : "bad"), "data-group": p.group },
        $("div", { text: mark + " " + p.group + " " + p.kind + " " + p.id + (p.segment ? " [segment " + p.segment + "]" : "") + (p.requirement ? " — requirement " + p.requirement : "") }));
      const lines = [];
      if (p.group === "G2") lines.push("expected " + JSON.stringify(p.expected) + ", got " + (p.got === null ? "(absent)" : JSON.stringify(p.got)));
      if (p.reason) lines.push(p.reason);
      for (const e of p.evidence) lines.push(e.role.replace(/_/g, " ") + ": " + e.summary);
      if (lines.length) li.append($("ul", {}, ...lines.map((l) => $("li", { text: l }))));
      list.append(li);
    }
    box.append(list);
    return box;
  }

  function text(content) {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return JSON.stringify(content, null, 2);
    return content.map((p) => p.text ?? (p.reasoning ? "[reasoning] " + clip(p.reasoning, 600) : "")).join("\n");
  }
  function clip(s, n = 6000) {
    return s.length > n ? s.slice(0, n) + "\n… (" + (s.length - n) + " more characters)" : s;
  }

  async function open(i) {
    const r = index.rows[i];
    pane.replaceChildren($("p", { text: "Loading…" }));
    let t;
    try {
      t = await load(i);
    } catch (e) {
      pane.replaceChildren($("p", { class: "error", text: e.message }));
      if (e.url) pane.append($("a", { href: e.url, text: "open the transcript file" }));
      return;
    }
    const head = $("div", { class: "tx-head" },
      $("h3", { text: index.agents[r[0]] + " · " + t.task_id + " · trial " + t.trial }),
      $("p", { text: "verdict " + JSON.stringify(t.verdict) + " · " + index.outcomes[r[3]] + " · " + (t.failure_reason || "") }),
      $("p", { text: "tokens " + JSON.stringify(t.tokens) + " · " + t.duration_s + " s" }));
    const msgs = $("ol", { class: "messages" });
    for (const m of t.messages || []) {
      const li = $("li", { class: "msg " + m.role }, $("div", { class: "role", text: m.role + (m.function ? " · " + m.function : "") }));
      const body = text(m.content);
      if (body) li.append($("pre", { text: clip(body) }));
      for (const c of m.tool_calls || []) {
        li.append($("pre", { class: "call", text: "→ " + c.name + "(" + clip(JSON.stringify(c.arguments), 3000) + ")" }));
      }
      if (m.error) li.append($("pre", { class: "error", text: clip(JSON.stringify(m.error), 2000) }));
      msgs.append(li);
    }
    const verifier = $("div", { class: "verifier" });
    const preds = (t.verifier && t.verifier.metadata && t.verifier.metadata.predicates) || [];
    if (preds.length) {
      const table = $("table", {}, $("tr", {}, $("th", { text: "group" }), $("th", { text: "predicate" }), $("th", { text: "passed" })));
      for (const p of preds) table.append($("tr", { class: p.passed ? "ok" : "bad" }, $("td", { text: p.group }), $("td", { text: p.label }), $("td", { text: p.passed ? "✓" : "✗" })));
      verifier.append($("h4", { text: "Verifier predicates" }), table);
    }
    const evidence = evidencePane(await loadEvidence(i));
    const txBody = $("div", { class: "tx-body" },
      $("div", {}, $("h4", { text: (t.messages || []).length + " messages" }), msgs), evidence);
    pane.replaceChildren(head, verifier, txBody);
    pane.setAttribute("data-open", String(i));
  }

  // A link from the item chart (#task=<id>): filter to the task, open its first trial, show it.
  function openFromHash() {
    const m = /^#task=(.+)$/.exec(location.hash);
    if (!m) return;
    const task = decodeURIComponent(m[1]);
    const t = index.tasks.indexOf(task);
    if (t < 0) return;
    fModel.value = "";
    fOutcome.value = "";
    fTask.value = task;
    renderList();
    const i = index.rows.findIndex((r) => r[1] === t);
    if (i >= 0) open(i);
    document.getElementById("viewer-section").scrollIntoView();
  }

  for (const el of [fModel, fOutcome]) el.addEventListener("change", renderList);
  fTask.addEventListener("input", renderList);
  window.addEventListener("hashchange", openFromHash);
  renderList();
  openFromHash();
})();
`;
