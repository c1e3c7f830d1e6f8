/**
 * Loopback JSON-RPC test double: a Solana RPC on 127.0.0.1 that serves accounts
 * from a map (getMultipleAccounts, getAccountInfo), a ledger of raw transactions
 * (getSignaturesForAddress, getTransaction) and counts calls. Not a cluster: just
 * enough of the protocol for web3.js's Connection and the backfill's client. It can
 * be told to answer HTTP 429 (or a JSON-RPC error) a few times, to test backoff.
 */
export type FakeAccount = { lamports: number; data: Uint8Array; owner?: string };

/** The parts of a getTransaction (json encoding) result the double indexes by. */
export type LedgerTransaction = {
  slot: number;
  blockTime: number | null;
  transaction: { signatures: string[]; message: { accountKeys: (string | { pubkey: string })[] } };
  meta: { err: unknown; loadedAddresses?: { writable?: string[]; readonly?: string[] } | null };
};

type Entry = { order: number; signature: string; slot: number; blockTime: number | null; err: unknown; json: string };
type Failure = { status: number; retryAfter?: string; rpcError?: { code: number; message: string } };

export function startRpcTestDouble(accounts: Map<string, FakeAccount> = new Map(), opts: { transactions?: LedgerTransaction[] } = {}) {
  const calls: { method: string; params: unknown[] }[] = [];
  const encode = (a: FakeAccount | undefined) =>
    a
      ? { lamports: a.lamports, owner: a.owner ?? "11111111111111111111111111111111", executable: false, rentEpoch: 0, space: a.data.length, data: [Buffer.from(a.data).toString("base64"), "base64"] }
      : null;

  // The ledger, in chain order: `order` is the position; each address lists the orders of its transactions.
  const ledger: Entry[] = [];
  const bySignature = new Map<string, Entry>();
  const byAddress = new Map<string, number[]>();
  function addTransactions(list: LedgerTransaction[]) {
    for (const tx of list) {
      const signature = tx.transaction.signatures[0]!;
      if (bySignature.has(signature)) continue;
      const entry: Entry = { order: ledger.length, signature, slot: tx.slot, blockTime: tx.blockTime, err: tx.meta.err, json: JSON.stringify(tx) };
      ledger.push(entry);
      bySignature.set(signature, entry);
      const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === "string" ? k : k.pubkey));
      const loaded = tx.meta.loadedAddresses;
      for (const key of new Set([...keys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])])) {
        let orders = byAddress.get(key);
        if (!orders) byAddress.set(key, (orders = []));
        orders.push(entry.order);
      }
    }
  }
  addTransactions(opts.transactions ?? []);

  /** newest first, strictly older than `before`, stopping at `until` (exclusive), at most `limit` */
  function signaturesFor(address: string, o: { before?: string; until?: string; limit?: number }) {
    const orders = byAddress.get(address) ?? [];
    const beforeOrder = o.before === undefined ? Infinity : bySignature.get(o.before)?.order;
    const untilOrder = o.until === undefined ? -1 : bySignature.get(o.until)?.order ?? -1;
    if (beforeOrder === undefined) return null;
    const out: unknown[] = [];
    const limit = o.limit ?? 1000;
    for (let i = orders.length - 1; i >= 0 && out.length < limit; i--) {
      const e = ledger[orders[i]!]!;
      if (e.order >= beforeOrder) continue;
      if (e.order <= untilOrder) break;
      out.push({ signature: e.signature, slot: e.slot, err: e.err, memo: null, blockTime: e.blockTime, confirmationStatus: "confirmed" });
    }
    return out;
  }

  const failures: Failure[] = [];
  let delayMs = 0;
  const rpcError = (id: unknown, code: number, message: string) => Response.json({ jsonrpc: "2.0", id, error: { code, message } });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { id: number; method: string; params: any[] };
      calls.push({ method: body.method, params: body.params });
      if (delayMs) await Bun.sleep(delayMs);
      const failure = failures.shift();
      if (failure) {
        if (failure.rpcError) return rpcError(body.id, failure.rpcError.code, failure.rpcError.message);
        const headers: Record<string, string> = failure.retryAfter === undefined ? {} : { "retry-after": failure.retryAfter };
        return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: failure.status, message: "Too many requests for a specific RPC call" } }, { status: failure.status, headers });
      }
      const ctx = { context: { slot: 1, apiVersion: "2.0.0" } };
      let result: unknown;
      if (body.method === "getMultipleAccounts") result = { ...ctx, value: (body.params[0] as string[]).map((k) => encode(accounts.get(k))) };
      else if (body.method === "getAccountInfo") result = { ...ctx, value: encode(accounts.get(body.params[0])) };
      else if (body.method === "getSignaturesForAddress") {
        const o = (body.params[1] ?? {}) as { before?: string; until?: string; limit?: number };
        if (o.limit !== undefined && (o.limit < 1 || o.limit > 1000)) return rpcError(body.id, -32602, "Invalid limit; max 1000");
        result = signaturesFor(body.params[0], o);
        if (result === null) return rpcError(body.id, -32602, "Invalid param: before signature not found");
      } else if (body.method === "getTransaction") {
        const o = (body.params[1] ?? {}) as { encoding?: string; maxSupportedTransactionVersion?: number };
        if (o.encoding !== "json") return rpcError(body.id, -32602, "this test double serves only the json encoding");
        if (o.maxSupportedTransactionVersion !== 0) return rpcError(body.id, -32015, "Transaction version (0) is not supported by the requesting client");
        const e = bySignature.get(body.params[0]);
        // the stored JSON goes out as is: serializing 20k transactions per test run would dominate a benchmark
        const text = `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":${e ? e.json : "null"}}`;
        return new Response(text, { headers: { "content-type": "application/json" } });
      } else return rpcError(body.id, -32601, `test double has no ${body.method}`);
      return Response.json({ jsonrpc: "2.0", id: body.id, result });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    stop: () => server.stop(true),
    addTransactions,
    /** the next `times` requests fail with HTTP `status` (429 by default) or with `rpcError` */
    failNext(times: number, failure: Partial<Failure> = {}) {
      for (let i = 0; i < times; i++) failures.push({ status: failure.status ?? 429, retryAfter: failure.retryAfter, rpcError: failure.rpcError });
    },
    /** every answer waits this long (to hold a run open in concurrency tests) */
    setDelay(ms: number) {
      delayMs = ms;
    },
  };
}
