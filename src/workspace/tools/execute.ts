import type { JsonObject, JsonValue } from "../../bank/json.js";
import { requestSignature, SIGNATURE_HEADERS } from "../../world/request-signature.js";
import type { PlainResponse } from "../../world/transport.js";
import { normalizeEntityRef, parseMaybeJson } from "../entity-ref.js";
import { resolvePlaceholders } from "../placeholders.js";
import { parseRequestContent } from "../request-content.js";
import type { RequestContent, Sign } from "../tool-definitions.js";
import { error, errorOf, okKept, type ToolResult, withLazyProperty, zodMessage } from "../tool-result.js";
import { carrier, PROTOCOL_HINT, unwrapJsonRpc, worldTarget } from "../wire-encoding.js";
import type { ToolArgs, WorkspaceState } from "../workspace-state.js";

/**
 * `execute(request | target, mode?)`: send one API call. The request (inline, stored as a new
 * request entity, or a stored one) has its `{{name}}` placeholders resolved, is carried over the
 * world's protocol, and its response is stored as a response entity; the agent gets the response's
 * ref, status, headers and a body preview.
 *
 * @example await executeTool(state, { request: { method: "GET", url: "/v3/valves" } }) // {ok: true, content: '{"response_ref":…}'}
 */
export async function executeTool(state: WorkspaceState, a: ToolArgs): Promise<ToolResult> {
  const chosen = requestToSend(state, a);
  if ("ok" in chosen) return chosen;
  const { content, requestId } = chosen;
  const protocol = state.opts.world.protocol ?? "rest";
  if (content.protocol !== "rest" && content.protocol !== protocol) {
    return error(
      "unsupported_protocol",
      `this world speaks ${protocol}, not ${content.protocol}; ${PROTOCOL_HINT[protocol]}`,
    );
  }
  const sent = await send(state, content);
  if ("ok" in sent) return sent;
  const { response, text } = sent;
  let parsedBody: JsonValue | null = null;
  // An in-process world hands the value its text was written from: parsing it back was the largest
  // single cost of an in-process call (listings are long). Shared with the log, never changed.
  const written = response instanceof Response ? undefined : response.body;
  if (written !== undefined) parsedBody = written;
  else
    try {
      parsedBody = text ? (JSON.parse(text) as JsonValue) : null;
    } catch {
      parsedBody = text;
    }
  if (content.protocol === "mcp") parsedBody = unwrapJsonRpc(parsedBody);
  const responseHeaders = Object.fromEntries(response.headers.entries());
  const responseId = state.nextId("resp");
  state.responses.set(responseId, {
    parent: requestId,
    status: response.status,
    headers: responseHeaders,
    body: parsedBody,
  });
  if (response.status === 202) keepHandle(state, response.headers.get("location"), requestId, responseId);
  // A body the world handed over is what its text was written from and is never changed: its
  // JSON is that text, so the text need not be kept until the preview is read.
  const shown =
    content.protocol === "mcp"
      ? { body: parsedBody }
      : written !== undefined
        ? written === null
          ? { text: "" }
          : { body: written }
        : { text };
  const summary = {
    response_ref: `request:${requestId}/response:${responseId}`,
    status: response.status,
    headers: responseHeaders,
  };
  previewSources.set(summary, { ...shown, chars: state.opts.previewChars ?? 4000 });
  return okKept(withLazyProperty(summary, "body_preview", bodyPreview));
}

/** What a summary's preview is written from: the response text, or the body it is the JSON of. */
const previewSources = new WeakMap<object, { text?: string; body?: JsonValue | null; chars: number }>();

/**
 * The preview of `execute`'s summary, written when first read, as its result's text is (see
 * `okKept`): most in-process trials read neither.
 */
function bodyPreview(this: object): string {
  const source = previewSources.get(this) as { text?: string; body?: JsonValue | null; chars: number };
  if (source.text === undefined) source.text = JSON.stringify(source.body);
  const { text: shown, chars } = source;
  return shown.length > chars
    ? `${shown.slice(0, chars)}… (${shown.length} chars; read the response for all of it)`
    : shown;
}

/** The request entity `execute` sends: the inline one (stored under a new id) or a stored one. */
function requestToSend(
  state: WorkspaceState,
  a: ToolArgs,
): { content: RequestContent; requestId: string } | ToolResult {
  if (a.request !== undefined && a.request !== null) {
    const parsed = parseMaybeJson(a.request, "request");
    if (!parsed.success) return errorOf(parsed.error);
    const checked = parseRequestContent(parsed.data);
    if (!checked.success) return error("bad_request", `request is invalid: ${zodMessage(checked.error)}`);
    const requestId = state.nextId("req");
    state.requests.set(requestId, checked.data as JsonObject);
    return { content: checked.data, requestId };
  }
  if (a.target !== undefined && a.target !== null) {
    const ref = normalizeEntityRef(a.target, "target");
    if (!ref.success) return errorOf(ref.error);
    if (ref.data.kind !== "request")
      return error("bad_target", `target must be a request, got ${ref.data.kind}`);
    const stored = state.requests.get(ref.data.id);
    if (!stored)
      return error("not_found", `no request "${ref.data.id}"; write it first or pass request={...}`);
    return { content: stored as RequestContent, requestId: ref.data.id };
  }
  return error("missing_field", "execute needs `request` (inline) or `target` (a stored request)");
}

/** Resolve, encode and send one request entity over the workspace's transport. */
async function send(
  state: WorkspaceState,
  content: RequestContent,
): Promise<{ response: PlainResponse | Response; text: string } | ToolResult> {
  const resolved = resolvePlaceholders(
    carrier(content, () => state.nextRpcId()),
    (name) => state.lookupVariable(name)?.value,
  );
  if (!resolved.success) return errorOf(resolved.error);
  const req = resolved.data;
  const method = req.method.toUpperCase();
  const target = worldTarget(req.url, state.opts.world.base_url);
  if (target === null) return error("bad_url", `url ${JSON.stringify(req.url)} is not a URL or a path`);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers ?? {})) {
    try {
      headers.set(k, v);
    } catch {
      return error("bad_header", `header ${JSON.stringify(k)} is not a valid HTTP header`);
    }
  }
  let body: string | undefined;
  if (req.body !== undefined && req.body !== null && method !== "GET" && method !== "HEAD") {
    body = typeof req.body === "string" ? req.body : JSON.stringify(req.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  if (req.sign) {
    const signed = signInto(headers, req.sign, method, target, body);
    if (signed) return signed;
  }
  let response: PlainResponse | Response;
  try {
    const { transport } = state.opts;
    response = transport.plain
      ? await transport.plain({ url: target, method, headers }, body)
      : await transport(new Request(target, { method, headers, body }));
  } catch (e) {
    return error("transport_failed", `the request could not be sent: ${(e as Error).message}`);
  }
  const text = response instanceof Response ? await response.text() : response.text;
  return { response, text };
}

/**
 * The workspace's request signer (`sign` on a REST request): the signature of the request as it
 * goes out (method, target, the nonce header's value, the body as sent), set in the sign's header;
 * a tool error when the nonce header is missing or a header name is not valid.
 */
function signInto(
  headers: Headers,
  sign: Sign,
  method: string,
  target: string,
  body: string | undefined,
): ToolResult | null {
  const nonceHeader = sign.nonce_header ?? SIGNATURE_HEADERS.nonce;
  const header = sign.header ?? SIGNATURE_HEADERS.signature;
  let nonce: string | null;
  try {
    nonce = headers.get(nonceHeader);
  } catch {
    return error("bad_header", `sign.nonce_header ${JSON.stringify(nonceHeader)} is not a valid HTTP header`);
  }
  if (nonce === null || nonce.trim() === "")
    return error(
      "bad_request",
      `sign needs the nonce it signs: send a ${nonceHeader} header (or name another in sign.nonce_header)`,
    );
  let signedBody: JsonValue | null = null;
  if (body !== undefined) {
    try {
      signedBody = JSON.parse(body) as JsonValue;
    } catch {
      return error("bad_request", "sign signs a JSON body: this request's body is not JSON");
    }
  }
  try {
    headers.set(header, requestSignature(sign.secret, method, new URL(target), nonce.trim(), signedBody));
  } catch {
    return error("bad_header", `sign.header ${JSON.stringify(header)} is not a valid HTTP header`);
  }
  return null;
}

/** A 202's `Location` becomes a handle entity named by its last path segment. */
function keepHandle(
  state: WorkspaceState,
  location: string | null,
  requestId: string,
  responseId: string,
): void {
  const handleId = location ? location.split("/").filter(Boolean).pop() : undefined;
  if (handleId)
    state.handles.set(handleId, {
      location: location as string,
      from: `request:${requestId}/response:${responseId}`,
    });
}
