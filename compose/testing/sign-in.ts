/**
 * For tests: wallets with real ed25519 keypairs that sign Sign-In With Solana messages
 * as a wallet's signMessage does (the message's UTF-8 bytes, signature in base58), and the
 * whole sign-in through the app (POST /v1/auth/nonce, then /verify).
 */
import { Keypair } from "@solana/web3.js";
import { ed25519 } from "@noble/curves/ed25519";
import bs58 from "bs58";

export type TestWallet = { address: string; sign(text: string): string };

export function testWallet(): TestWallet {
  const kp = Keypair.generate();
  const seed = kp.secretKey.slice(0, 32);
  return { address: kp.publicKey.toBase58(), sign: (text) => bs58.encode(ed25519.sign(new TextEncoder().encode(text), seed)) };
}

type Call = (path: string, init?: RequestInit) => Promise<{ status: number; headers: Headers; body: any }>;

export const postJson = (call: Call, path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

/** Signs in through the app; the token pair of /v1/auth/verify. */
export async function signIn(call: Call, wallet: TestWallet): Promise<{ accessToken: string; refreshToken: string; expiresAt: string; address: string }> {
  const nonce = await postJson(call, "/v1/auth/nonce", { address: wallet.address });
  if (nonce.status !== 200) throw new Error(`nonce: ${nonce.status} ${JSON.stringify(nonce.body)}`);
  const verified = await postJson(call, "/v1/auth/verify", { message: nonce.body.message, signature: wallet.sign(nonce.body.message) });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${JSON.stringify(verified.body)}`);
  return verified.body;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Test double of the wallet sign-in: whoever names a wallet in `x-test-wallet` is signed in as it. */
export const testWalletHeaderAuthenticator = async (request: Request): Promise<{ address: string } | null> => {
  const wallet = request.headers.get("x-test-wallet");
  return wallet ? { address: wallet } : null;
};

/** A request as `wallet` (signed in through testWalletHeaderAuthenticator; null: not signed in), with a JSON body when given. */
export const asWallet = (wallet: string | null, method = "GET", body?: unknown): RequestInit => ({
  method,
  headers: { ...(wallet ? { "x-test-wallet": wallet } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
  ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
});
