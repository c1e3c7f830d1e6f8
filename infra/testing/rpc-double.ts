/**
 * Loopback JSON-RPC test double: a Solana RPC on 127.0.0.1 that serves accounts
 * from a map (getMultipleAccounts, getAccountInfo) and counts calls. Not a
 * cluster: just enough of the protocol for web3.js's Connection.
 */
export type FakeAccount = { lamports: number; data: Uint8Array; owner?: string };

export function startRpcTestDouble(accounts: Map<string, FakeAccount>) {
  const calls: { method: string; params: unknown[] }[] = [];
  const encode = (a: FakeAccount | undefined) =>
    a
      ? { lamports: a.lamports, owner: a.owner ?? "11111111111111111111111111111111", executable: false, rentEpoch: 0, space: a.data.length, data: [Buffer.from(a.data).toString("base64"), "base64"] }
      : null;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { id: number; method: string; params: any[] };
      calls.push({ method: body.method, params: body.params });
      const ctx = { context: { slot: 1, apiVersion: "2.0.0" } };
      let result: unknown;
      if (body.method === "getMultipleAccounts") result = { ...ctx, value: (body.params[0] as string[]).map((k) => encode(accounts.get(k))) };
      else if (body.method === "getAccountInfo") result = { ...ctx, value: encode(accounts.get(body.params[0])) };
      else return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: `test double has no ${body.method}` } });
      return Response.json({ jsonrpc: "2.0", id: body.id, result });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) };
}
