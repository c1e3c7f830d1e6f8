/**
 * Jupiter's Swap API v1 over `fetch` (not @jup-ag/api: its `createJupiterApiClient` replaces
 * the base path, so a configured JUPITER_SWAP_URL would be ignored):
 *
 *   GET  {url}/quote?inputMint&outputMint&amount&slippageBps&restrictIntermediateTokens=true
 *        -> the route (amounts as decimal strings; `otherAmountThreshold` is the minimum out)
 *   POST {url}/swap { quoteResponse, userPublicKey, wrapAndUnwrapSol, dynamicComputeUnitLimit }
 *        -> { swapTransaction: base64 of an unsigned v0 transaction, lastValidBlockHeight }
 *
 * Wire shapes: jup-ag/jupiter-quote-api-node `generated/models/QuoteResponse.ts` and
 * `SwapResponse.ts`. `apiKey` (JUPITER_API_KEY, needed by api.jup.ag) goes in `x-api-key`;
 * it is a secret: no error message or log line carries it (nor the request's headers).
 *
 * Errors: `JupiterUnavailable` when the aggregator could not be reached or answered 429/5xx
 * or a body that does not read (try again later), `JupiterRefused` for any other 4xx (no
 * route for this pair, ...).
 */
import * as v from "valibot";
import { VersionedTransaction } from "@solana/web3.js";

export const JUPITER_DEFAULT_URL = "https://lite-api.jup.ag/swap/v1";
export const WRAPPED_SOL_MINT = "So11111111111111111111111111111111111111112";

const amount = v.pipe(v.string(), v.regex(/^\d{1,20}$/, "an amount in atoms"));
const SwapInfo = v.object({ ammKey: v.string(), label: v.optional(v.string()), inputMint: v.string(), outputMint: v.string(), inAmount: amount, outAmount: amount });
/** The quote as /quote answers it; passed back to /swap unchanged (`raw`). */
const QuoteResponse = v.looseObject({
  inputMint: v.string(),
  inAmount: amount,
  outputMint: v.string(),
  outAmount: amount,
  otherAmountThreshold: amount,
  swapMode: v.string(),
  slippageBps: v.number(),
  priceImpactPct: v.optional(v.string()),
  routePlan: v.array(v.looseObject({ swapInfo: v.looseObject(SwapInfo.entries), percent: v.optional(v.nullable(v.number())) })),
  contextSlot: v.optional(v.number()),
});
const SwapResponse = v.looseObject({ swapTransaction: v.pipe(v.string(), v.minLength(1)), lastValidBlockHeight: v.number() });

export type JupiterQuote = {
  inAmount: bigint;
  outAmount: bigint;
  /** the minimum out the swap enforces on-chain (outAmount less slippage) */
  otherAmountThreshold: bigint;
  inputMint: string;
  outputMint: string;
  swapMode: string;
  slippageBps: number;
  /** the labels of the route's hops (e.g. "Meteora DLMM") */
  route: string[];
  /** the answer as it came, for /swap */
  raw: Record<string, unknown>;
};

export class JupiterUnavailable extends Error {}
export class JupiterRefused extends Error {}

export type JupiterClient = {
  quote(q: { inputMint: string; outputMint: string; amount: bigint; slippageBps: number }): Promise<JupiterQuote>;
  swap(quote: JupiterQuote, userPublicKey: string): Promise<{ transaction: VersionedTransaction; lastValidBlockHeight: number }>;
};

const TIMEOUT_MS = 10_000;

export function createJupiterClient(o: { url: string; apiKey: string | null }): JupiterClient {
  const base = o.url.replace(/\/+$/, "");
  const headers = (json: boolean): Record<string, string> => ({
    accept: "application/json",
    ...(json ? { "content-type": "application/json" } : {}),
    ...(o.apiKey ? { "x-api-key": o.apiKey } : {}),
  });
  const redact = (t: string) => (o.apiKey ? t.split(o.apiKey).join("[redacted]") : t);
  async function call(path: string, init: RequestInit): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (e) {
      throw new JupiterUnavailable(`Jupiter ${path.split("?")[0]} could not be reached: ${(e as Error).name}`);
    }
    // an answer may echo the key (some APIs do): never passed on
    const text = redact(await res.text().catch(() => ""));
    if (res.status === 429 || res.status >= 500) throw new JupiterUnavailable(`Jupiter ${path.split("?")[0]} answered HTTP ${res.status}`);
    if (!res.ok) throw new JupiterRefused(`Jupiter ${path.split("?")[0]} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new JupiterUnavailable(`Jupiter ${path.split("?")[0]} answered a body that is not JSON`);
    }
  }
  const parse = <S extends v.GenericSchema>(schema: S, body: unknown, what: string): v.InferOutput<S> => {
    const r = v.safeParse(schema, body);
    if (!r.success) throw new JupiterUnavailable(`Jupiter ${what} answered an unexpected shape: ${r.issues.map((i) => `${v.getDotPath(i) ?? "(root)"}: ${i.message}`).join("; ")}`);
    return r.output;
  };
  return {
    async quote(q) {
      const query = new URLSearchParams({
        inputMint: q.inputMint,
        outputMint: q.outputMint,
        amount: q.amount.toString(),
        slippageBps: String(q.slippageBps),
        restrictIntermediateTokens: "true",
      });
      const body = await call(`/quote?${query}`, { method: "GET", headers: headers(false) });
      const r = parse(QuoteResponse, body, "/quote");
      return {
        inAmount: BigInt(r.inAmount),
        outAmount: BigInt(r.outAmount),
        otherAmountThreshold: BigInt(r.otherAmountThreshold),
        inputMint: r.inputMint,
        outputMint: r.outputMint,
        swapMode: r.swapMode,
        slippageBps: r.slippageBps,
        route: r.routePlan.map((p) => p.swapInfo.label ?? p.swapInfo.ammKey),
        raw: body as Record<string, unknown>,
      };
    },
    async swap(quote, userPublicKey) {
      const body = await call("/swap", {
        method: "POST",
        headers: headers(true),
        body: JSON.stringify({ quoteResponse: quote.raw, userPublicKey, wrapAndUnwrapSol: true, dynamicComputeUnitLimit: true }),
      });
      const r = parse(SwapResponse, body, "/swap");
      let transaction: VersionedTransaction;
      try {
        transaction = VersionedTransaction.deserialize(Buffer.from(r.swapTransaction, "base64"));
      } catch (e) {
        throw new JupiterUnavailable(`Jupiter /swap answered a transaction that does not read: ${(e as Error).message}`);
      }
      return { transaction, lastValidBlockHeight: r.lastValidBlockHeight };
    },
  };
}

/**
 * Checks a quote for an exact-in buy of `outputMint` with `lamports` of SOL within
 * `slippageBps`: the pair, the amount in, and a minimum out no lower than the quote less the
 * slippage asked (the bound the swap enforces on-chain). Throws JupiterRefused otherwise.
 */
export function checkBuyQuote(q: JupiterQuote, o: { outputMint: string; lamports: bigint; slippageBps: number }): void {
  const problems: string[] = [];
  if (q.inputMint !== WRAPPED_SOL_MINT) problems.push(`input mint ${q.inputMint}, not SOL`);
  if (q.outputMint !== o.outputMint) problems.push(`output mint ${q.outputMint}, not ${o.outputMint}`);
  if (q.swapMode !== "ExactIn") problems.push(`swap mode ${q.swapMode}, not ExactIn`);
  if (q.inAmount !== o.lamports) problems.push(`in amount ${q.inAmount}, not ${o.lamports}`);
  const floor = (q.outAmount * BigInt(10_000 - o.slippageBps)) / 10_000n;
  if (q.otherAmountThreshold <= 0n || q.otherAmountThreshold < floor) problems.push(`minimum out ${q.otherAmountThreshold} below ${floor} (out ${q.outAmount} less ${o.slippageBps} bps)`);
  if (problems.length) throw new JupiterRefused(`Jupiter's quote does not fit the buy: ${problems.join("; ")}`);
}
