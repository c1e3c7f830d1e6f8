/**
 * SOL/USD sources. Each returns a price or throws; the service tries them in the
 * configured order.
 */
export type SolPrice = { usd: number; conf: number | null; publishTime: string; source: "oracle" | "oracle-relay" | "aggregator" | "exchange" };
/** `simulated`: the demo's price (simulated.ts), never a market's */
export type PriceSource = { name: SolPrice["source"]; simulated?: boolean; read(): Promise<SolPrice> };

const WSOL = "So11111111111111111111111111111111111111112";
const TIMEOUT_MS = 2000;

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json();
}

function positive(n: unknown, what: string): number {
  const x = typeof n === "string" ? Number(n) : n;
  if (typeof x !== "number" || !Number.isFinite(x) || x <= 0) throw new Error(`${what} is not a positive number`);
  return x;
}

/**
 * Pyth PriceUpdateV2 account (Pyth Solana receiver): 8-byte discriminator, write
 * authority (32), verification level (enum: Partial{u8} = 2 bytes, Full = 1 byte),
 * then the price message: feed id (32), price i64, conf u64, exponent i32,
 * publish time i64.
 */
export function decodePythPriceUpdate(data: Uint8Array): { price: number; conf: number; publishTime: number } {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let o = 8 + 32;
  const level = data[o];
  o += level === 0 ? 2 : 1;
  o += 32;
  if (data.length < o + 28) throw new Error("price update account is too short");
  const price = view.getBigInt64(o, true);
  const conf = view.getBigUint64(o + 8, true);
  const expo = view.getInt32(o + 16, true);
  const publishTime = Number(view.getBigInt64(o + 20, true));
  const scale = 10 ** expo;
  return { price: Number(price) * scale, conf: Number(conf) * scale, publishTime };
}

export function oracleSource(readAccount: (address: string) => Promise<Uint8Array | null>, account: string): PriceSource {
  return {
    name: "oracle",
    async read() {
      const data = await readAccount(account);
      if (!data) throw new Error(`oracle account ${account} not found`);
      const p = decodePythPriceUpdate(data);
      return { usd: positive(p.price, "oracle price"), conf: p.conf, publishTime: new Date(p.publishTime * 1000).toISOString(), source: "oracle" };
    },
  };
}

/** Jupiter price API: v2 `{ data: { <mint>: { price } } }` or v3 `{ <mint>: { usdPrice } }`. */
export function aggregatorSource(url: string): PriceSource {
  return {
    name: "aggregator",
    async read() {
      const body = (await getJson(url)) as Record<string, any>;
      const entry = body?.data?.[WSOL] ?? body?.[WSOL];
      const usd = positive(entry?.price ?? entry?.usdPrice, "aggregator price");
      return { usd, conf: null, publishTime: new Date().toISOString(), source: "aggregator" };
    },
  };
}

/** Coinbase spot price: `{ data: { base: "SOL", currency: "USD", amount: "123.45" } }`. */
export function exchangeSource(url: string): PriceSource {
  return {
    name: "exchange",
    async read() {
      const body = (await getJson(url)) as { data?: { amount?: unknown; currency?: unknown } };
      if (body?.data?.currency !== undefined && body.data.currency !== "USD") throw new Error("exchange price is not in USD");
      return { usd: positive(body?.data?.amount, "exchange price"), conf: null, publishTime: new Date().toISOString(), source: "exchange" };
    },
  };
}
