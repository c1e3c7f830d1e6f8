/**
 * Loopback TEST DOUBLE of Jupiter's Swap API v1 (`GET /quote`, `POST /swap`), answering the
 * shapes of jup-ag/jupiter-quote-api-node's `QuoteResponse` and `SwapResponse` (amounts as
 * decimal strings). Nothing here talks to Jupiter.
 *
 * - /quote: exact-in quotes at a set rate (`atomsPerLamport`: out = in × num / den), the
 *   minimum out (`otherAmountThreshold`) = out less `slippageBps`, a one-hop route.
 * - /swap: a real unsigned v0 transaction for `userPublicKey` (fee payer, only signer, no
 *   lookup tables, so the RPC test double can land it): a compute-unit limit, the wrapped-SOL
 *   account opened and funded (a System transfer of the amount in), the route instruction of
 *   the Jupiter program (data: `route`'s discriminator, an empty route plan, in amount, quoted
 *   out amount, slippage bps, platform fee bps; accounts as the program orders them), and the
 *   wrapped-SOL account closed. `jupiterRouteOf` reads such an instruction back (for a test's
 *   landed effects).
 * - With `apiKey`, every request must carry it in `x-api-key` (401 otherwise); requests are
 *   recorded (`requests`, with whether a key came); `failNext(status)` fails the next calls.
 */
import { createHash } from "node:crypto";
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type TransactionInstruction } from "@solana/web3.js";
import {
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";

export const JUPITER_PROGRAM_ID = new PublicKey("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4");
const JUPITER_EVENT_AUTHORITY = new PublicKey("D8cy77BBepLMngZx6ZukaTff5hCt1HrWyKk3Hnd9oitf");
const ROUTE_DISCRIMINATOR = createHash("sha256").update("global:route").digest().subarray(0, 8);

export type RecordedJupiterRequest = { method: string; path: string; query: Record<string, string>; body: any; withKey: boolean };
export type JupiterRoute = { user: string; source: string; destination: string; mint: string; inAmount: bigint; quotedOutAmount: bigint; slippageBps: number };

/** Reads the double's route instruction (program, accounts, data); null for any other instruction. */
export function jupiterRouteOf(ix: { programId: string; keys: string[]; data: Uint8Array }): JupiterRoute | null {
  if (ix.programId !== JUPITER_PROGRAM_ID.toBase58() || ix.data.length !== 31 || !Buffer.from(ix.data.subarray(0, 8)).equals(ROUTE_DISCRIMINATOR)) return null;
  const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.length);
  return {
    user: ix.keys[1]!,
    source: ix.keys[2]!,
    destination: ix.keys[3]!,
    mint: ix.keys[5]!,
    inAmount: view.getBigUint64(12, true),
    quotedOutAmount: view.getBigUint64(20, true),
    slippageBps: view.getUint16(28, true),
  };
}

function routeInstruction(user: PublicKey, source: PublicKey, destination: PublicKey, mint: PublicKey, inAmount: bigint, outAmount: bigint, slippageBps: number): TransactionInstruction {
  const data = Buffer.alloc(31);
  ROUTE_DISCRIMINATOR.copy(data, 0);
  data.writeUInt32LE(0, 8); // route plan: empty
  data.writeBigUInt64LE(inAmount, 12);
  data.writeBigUInt64LE(outAmount, 20);
  data.writeUInt16LE(slippageBps, 28);
  data.writeUInt8(0, 30);
  const ro = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: false });
  return {
    programId: JUPITER_PROGRAM_ID,
    keys: [
      ro(TOKEN_PROGRAM_ID),
      { pubkey: user, isSigner: true, isWritable: true },
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      ro(JUPITER_PROGRAM_ID), // destination_token_account: none (the program's id, as Jupiter encodes an absent optional account)
      ro(mint),
      ro(JUPITER_PROGRAM_ID), // platform_fee_account: none
      ro(JUPITER_EVENT_AUTHORITY),
      ro(JUPITER_PROGRAM_ID),
    ],
    data,
  } as TransactionInstruction;
}

export function startJupiterApiTestDouble(o: {
  /** out atoms per lamport in, as a fraction */
  atomsPerLamport: { num: bigint; den: bigint };
  apiKey?: string;
  /** the token program of output mints (default: Token) */
  tokenProgramOf?: (mint: string) => PublicKey;
  /** what /swap puts in the transaction (default: a made-up blockhash valid for 150 blocks from 1000) */
  latestBlockhash?: () => { blockhash: string; lastValidBlockHeight: number };
}) {
  const requests: RecordedJupiterRequest[] = [];
  const failures: number[] = [];
  let contextSlot = 330_000_000;
  const json = (status: number, body: unknown) => Response.json(body, { status });
  const latest = o.latestBlockhash ?? (() => ({ blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 1150 }));

  function quote(q: URLSearchParams) {
    const problems: string[] = [];
    for (const k of ["inputMint", "outputMint", "amount"]) if (!q.get(k)) problems.push(`${k} is required`);
    if (q.get("amount") && !/^\d+$/.test(q.get("amount")!)) problems.push("amount must be an integer");
    if (problems.length) return json(400, { error: problems.join("; "), errorCode: "INVALID_REQUEST" });
    const inAmount = BigInt(q.get("amount")!);
    const slippageBps = Number(q.get("slippageBps") ?? "50");
    const outAmount = (inAmount * o.atomsPerLamport.num) / o.atomsPerLamport.den;
    if (outAmount === 0n) return json(400, { error: "Could not find any route", errorCode: "COULD_NOT_FIND_ANY_ROUTE" });
    const threshold = (outAmount * BigInt(10_000 - slippageBps)) / 10_000n;
    const inputMint = q.get("inputMint")!;
    const outputMint = q.get("outputMint")!;
    return json(200, {
      inputMint,
      inAmount: inAmount.toString(),
      outputMint,
      outAmount: outAmount.toString(),
      otherAmountThreshold: threshold.toString(),
      swapMode: q.get("swapMode") ?? "ExactIn",
      slippageBps,
      platformFee: null,
      priceImpactPct: "0.0012",
      routePlan: [
        {
          swapInfo: {
            ammKey: "5rCf1DM8LjKTw4YqhnoLcngyZYeNnQqztScTogYHAS6",
            label: "Meteora DLMM",
            inputMint,
            outputMint,
            inAmount: inAmount.toString(),
            outAmount: outAmount.toString(),
            feeAmount: (inAmount / 1000n).toString(),
            feeMint: inputMint,
          },
          percent: 100,
        },
      ],
      contextSlot: contextSlot++,
      timeTaken: 0.004,
    });
  }

  function swap(body: any) {
    const q = body?.quoteResponse;
    let user: PublicKey;
    try {
      user = new PublicKey(String(body?.userPublicKey));
    } catch {
      return json(400, { error: "userPublicKey must be a base58 public key", errorCode: "INVALID_REQUEST" });
    }
    if (!q || typeof q.inAmount !== "string" || typeof q.outAmount !== "string" || typeof q.outputMint !== "string")
      return json(400, { error: "quoteResponse is required", errorCode: "INVALID_REQUEST" });
    const mint = new PublicKey(q.outputMint);
    const inAmount = BigInt(q.inAmount);
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, user);
    const program = o.tokenProgramOf?.(q.outputMint) ?? TOKEN_PROGRAM_ID;
    const destination = getAssociatedTokenAddressSync(mint, user, false, program);
    const { blockhash, lastValidBlockHeight } = latest();
    const message = new TransactionMessage({
      payerKey: user,
      recentBlockhash: blockhash,
      instructions: [
        ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }),
        createAssociatedTokenAccountIdempotentInstruction(user, wsol, user, NATIVE_MINT),
        SystemProgram.transfer({ fromPubkey: user, toPubkey: wsol, lamports: inAmount }),
        createSyncNativeInstruction(wsol),
        createAssociatedTokenAccountIdempotentInstruction(user, destination, user, mint, program),
        routeInstruction(user, wsol, destination, mint, inAmount, BigInt(q.outAmount), Number(q.slippageBps ?? 0)),
        createCloseAccountInstruction(wsol, user, user),
      ],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    return json(200, { swapTransaction: Buffer.from(tx.serialize()).toString("base64"), lastValidBlockHeight, prioritizationFeeLamports: 0 });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const text = req.method === "POST" ? await req.text() : "";
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        return json(400, { error: "body is not JSON" });
      }
      const key = req.headers.get("x-api-key");
      requests.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), body, withKey: key !== null });
      const failure = failures.shift();
      if (failure !== undefined) return json(failure, { error: "test double: failing as told" });
      // echoes the key it was given, as some APIs do, so a client that passes error text on must redact it
      if (o.apiKey !== undefined && key !== o.apiKey) return json(401, { error: `Unauthorized: invalid api key ${key}`, code: 401 });
      const path = url.pathname.replace(/^\/swap\/v1/, "");
      if (req.method === "GET" && path === "/quote") return quote(url.searchParams);
      if (req.method === "POST" && path === "/swap") return swap(body);
      return json(404, { error: "not found" });
    },
  });
  return {
    /** the Swap API's base URL (JUPITER_SWAP_URL) */
    url: `http://127.0.0.1:${server.port}/swap/v1`,
    requests,
    /** the next calls answer these HTTP statuses, in order */
    failNext(...statuses: number[]) {
      failures.push(...statuses);
    },
    stop: () => server.stop(true),
  };
}
