/**
 * Who may call the signed-in and operator routes. The sign-in itself (wallet, tokens) is
 * api/auth's; these routes take its `authenticate` as a dependency: the signed-in wallet
 * or null. An operator is the wallet that launched the agent (`agents.creator`).
 */
import { ApiError } from "../errors";

/** The signed-in wallet of a request (Authorization: Bearer <access token>), or null (it may also throw its own 401). */
export type Authenticate = (request: Request) => Promise<{ address: string } | null>;

export const signInRequired = () =>
  new ApiError(401, "AUTH_REQUIRED", "sign in with your wallet and send Authorization: Bearer <access token>", undefined, { "www-authenticate": "Bearer" });

export const notOperator = (mint: string) =>
  new ApiError(403, "NOT_OPERATOR", `only the wallet that launched ${mint} can run its agent`);

/** The signed-in wallet, or 401. */
export async function signedIn(authenticate: Authenticate, request: Request): Promise<string> {
  const who = await authenticate(request);
  if (!who) throw signInRequired();
  return who.address;
}
