import type { World } from "../bank/world-schema.js";
import { API_KEY_HEADER, authScheme } from "./credential.js";

/** The GraphQL field that mints a token (the world's OAuth client-credentials endpoint). */
export const GRAPHQL_TOKEN_FIELD = "issueToken";

/** The MCP tool that mints a token. */
export const MCP_TOKEN_TOOL = "issue_token";

/** The protocol an agent speaks to a world: REST, or one of the protocol variants. */
export type WorldProtocol = "rest" | "graphql" | "mcp";

/**
 * How an agent reaches the token endpoint and sends a token back, in the words of the protocol
 * it speaks, for the hints of 401 and 403 answers: a GraphQL or MCP agent is pointed at
 * `issueToken` / `issue_token`, not at a REST path it cannot call.
 *
 * @example tokenWording(world.auth, "mcp").mint // "the issue_token tool"
 */
export function tokenWording(auth: World["auth"], protocol: WorldProtocol): TokenWording {
  let byProtocol = wordings.get(auth);
  if (!byProtocol) {
    byProtocol = {};
    wordings.set(auth, byProtocol);
  }
  let wording = byProtocol[protocol];
  if (!wording) {
    wording = wordingOf(auth, protocol);
    byProtocol[protocol] = wording;
  }
  return wording;
}

/** How an agent of one protocol mints and sends a token (see `tokenWording`). */
export interface TokenWording {
  mint: string;
  grant: (value: string) => string;
  field: (name: string, value: string) => string;
  send: string;
}

// One wording per world's auth and protocol: every call to an authenticated route words its hint.
const wordings = new WeakMap<World["auth"], Partial<Record<WorldProtocol, TokenWording>>>();

function wordingOf(auth: World["auth"], protocol: WorldProtocol): TokenWording {
  const header =
    authScheme(auth) === "api_key" ? `${API_KEY_HEADER}: <api_key>` : "Authorization: Bearer <token>";
  if (protocol === "rest")
    return {
      mint: `POST ${auth.token_path}`,
      grant: (value) => `grant_type=${value}`,
      field: (name, value) => `${name}=${value}`,
      send: `send ${header}`,
    };
  const field = (name: string, value: string) => `${name}: ${JSON.stringify(value)}`;
  return protocol === "graphql"
    ? {
        mint: `the ${GRAPHQL_TOKEN_FIELD} mutation`,
        grant: (value) => field("grant_type", value),
        field,
        send: `send ${header} as a header of your /graphql requests`,
      }
    : {
        mint: `the ${MCP_TOKEN_TOOL} tool`,
        grant: (value) => field("grant_type", value),
        field,
        send: `send ${header} as an HTTP header of your MCP requests`,
      };
}
