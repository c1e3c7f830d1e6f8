/**
 * What other routes use to know who calls: `Authorization: Bearer <access token>` from a
 * wallet sign-in (service.ts).
 *
 * - auth.authenticate(request): the signed-in wallet, or null (no token, or one that is
 *   unknown, expired or revoked). For routes that read differently when signed in.
 * - auth.requireSignedIn(request): the same, or 401 with the reason's code
 *   (AUTH_REQUIRED, TOKEN_INVALID, TOKEN_EXPIRED, TOKEN_REVOKED).
 * - requireOperator(deps, request, mint): signed in as the wallet that launched the agent
 *   (`agents.creator`): 401 as above, 404 NOT_FOUND for an unknown agent, 403 NOT_OPERATOR
 *   for any other wallet.
 * A failing Postgres is not "signed out": it throws, and the request is a logged 500.
 */
import type { Sql } from "../../infra/postgres";
import { ApiError, notFound } from "../errors";
import { unauthorized, type AuthService, type Session } from "./service";

export type Auth = {
  authenticate(request: Request): Promise<{ address: string } | null>;
  requireSignedIn(request: Request): Promise<Session>;
};

/** The bearer token of a request, or the 401 of a missing or malformed Authorization. */
export function bearerToken(request: Request): string {
  const header = request.headers.get("authorization");
  if (!header) throw unauthorized("AUTH_REQUIRED", "sign in first: send `Authorization: Bearer <accessToken>` from POST /v1/auth/verify");
  const m = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized("TOKEN_INVALID", "Authorization must be `Bearer <accessToken>`");
  return m[1]!;
}

export function createAuth(service: Pick<AuthService, "session">): Auth {
  const requireSignedIn = async (request: Request) => service.session(bearerToken(request));
  return {
    requireSignedIn,
    async authenticate(request) {
      try {
        const s = await requireSignedIn(request);
        return { address: s.address };
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
  };
}

export type OperatorDeps = { auth: Auth; sql: Sql };

/** The signed-in operator of agent `mint` (the wallet that launched it). */
export async function requireOperator(deps: OperatorDeps, request: Request, mint: string): Promise<Session> {
  const session = await deps.auth.requireSignedIn(request);
  const [agent] = await deps.sql<{ creator: string }[]>`SELECT creator FROM agents WHERE mint = ${mint}`;
  if (!agent) throw notFound(`no agent with mint ${mint}`);
  if (agent.creator !== session.address) throw new ApiError(403, "NOT_OPERATOR", "only the wallet that launched this agent can run it; sign in with that wallet");
  return session;
}
