import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { normalizeRpcTransaction, normalizeWebhookTransaction } from "./normalize";
import type { ChainTransaction } from "./transaction";
import { FIXTURES_URL } from "../infra/testing/fixtures";

const DIR = new URL("helius-devnet/", FIXTURES_URL);
const read = async (name: string): Promise<any> => JSON.parse(await Bun.file(new URL(name, DIR)).text());
const clone = <T>(v: T): T => structuredClone(v);

const DBC = "dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN";
const CP_AMM = "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG";
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const PAYER = "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf";

function ok(element: unknown): ChainTransaction {
  const r = normalizeWebhookTransaction(element);
  if (!r.ok) throw new Error(r.reason);
  return r.tx;
}

function reason(element: unknown): string {
  const r = normalizeWebhookTransaction(element);
  if (r.ok) throw new Error("expected a rejection");
  expect(r.reason.length).toBeGreaterThan(0);
  return r.reason;
}

describe("every fixture normalizes", () => {
  const expected: Record<
    string,
    { signature: string; slot: number; blockTime: number; outer: number; inner: number[] }
  > = {
    "damm-v2-buy.enhanced.json": {
      signature: "28uuEn1518R6trARqBRPC4cDxCKUwP9zx9GNrzMaLiWoqKtSQUzZsGWhpzLwBvNTnaT9JuJaMyfrSGwJgjDkhN3r",
      slot: 415186108,
      blockTime: 1760695930,
      outer: 7,
      inner: [0, 0, 4, 0, 0, 4, 0],
    },
    "damm-v2-sell.enhanced.json": {
      signature: "66cZgGQey59s3GK4QvrxG1rRRpw1VANrcpym7EntkWaXof2tENbTXU8Efhk2HLbp9tLjUCb5dRqGwLkKioYJMvPB",
      slot: 415186255,
      blockTime: 1760695987,
      outer: 5,
      inner: [0, 0, 4, 4, 0],
    },
    "dbc-buy.enhanced.json": {
      signature: "5gf6fduSgAssqxYpgRzcCHWcg7yKTdtynsYxU4x7B25YANEKZDFRvFtq22FaGaqReftbErAijndSfcNnSXiW2WZN",
      slot: 415184133,
      blockTime: 1760695166,
      outer: 8,
      inner: [0, 0, 4, 4, 0, 0, 4, 0],
    },
    "dbc-create-pool.raw.json": {
      signature: "5hsqkSAZ9qcF5yNkXi4P7oCU2Uw7ydVQQ9oCu6J9Gy418tzygUBxmzTPbU1k2VR3a9a1vi9pxddUwtMvy9218PFL",
      slot: 415181032,
      blockTime: 1760693966,
      outer: 1,
      inner: [15],
    },
    "dbc-migrate-damm-v2.enhanced.json": {
      signature: "4hhaf2y5mTNM2vdYc82G3Se637caBDYBNyWiwBQHsJnCaBV8WCmdectj5nKanthrcF6rcHtYaK6Gc5cCv7rsjqXs",
      slot: 415185376,
      blockTime: 1760695648,
      outer: 2,
      inner: [44, 0],
    },
    "dbc-sell.enhanced.json": {
      signature: "5cfHQeyTUkqEWCYxauctTm9bKH5x8RCQGKkWHpbBuiqeadcEvoMkEXNTYZWoHPuvctQRoG7BEXEVMc9MPJrNhtBf",
      slot: 415184728,
      blockTime: 1760695397,
      outer: 5,
      inner: [0, 0, 4, 4, 0],
    },
  };
  for (const [name, e] of Object.entries(expected)) {
    test(name, async () => {
      const tx = ok(await read(name));
      expect(tx.signature).toBe(e.signature);
      expect(tx.slot).toBe(e.slot);
      expect(tx.blockTime).toBe(e.blockTime);
      expect(tx.feePayer).toBe(PAYER);
      expect(tx.failed).toBe(false);
      expect(tx.instructions.length).toBe(e.outer);
      expect(tx.instructions.map((i) => i.inner.length)).toEqual(e.inner);
      for (const ix of [...tx.instructions, ...tx.instructions.flatMap((i) => i.inner)]) {
        expect(ix.data).toBeInstanceOf(Uint8Array);
        for (const a of [ix.programId, ...ix.accounts]) expect(bs58.decode(a).length).toBe(32);
      }
    });
  }
});

describe("enhanced shape", () => {
  test("instruction data is the base58 payload and accounts keep their order", async () => {
    const e = await read("dbc-buy.enhanced.json");
    const tx = ok(e);
    const swap = tx.instructions[6]!;
    expect(swap.programId).toBe(DBC);
    expect(swap.accounts).toEqual(e.instructions[6].accounts);
    expect(Buffer.from(swap.data).toString("hex")).toBe(
      Buffer.from(bs58.decode(e.instructions[6].data)).toString("hex"),
    );
    expect(Buffer.from(swap.data.subarray(0, 8)).toString("hex")).toBe("f8c69e91e17587c8"); // swap
    expect(swap.inner[3]!.programId).toBe(DBC);
    expect(swap.inner[0]!.programId).toBe(TOKEN);
  });

  test("transactionError makes it failed", async () => {
    const e = await read("dbc-buy.enhanced.json");
    e.transactionError = { InstructionError: [6, { Custom: 6001 }] };
    expect(ok(e).failed).toBe(true);
  });

  test("missing timestamp means blockTime 0; missing innerInstructions means none", async () => {
    const e = await read("dbc-sell.enhanced.json");
    e.timestamp = null;
    delete e.instructions[0].innerInstructions;
    const tx = ok(e);
    expect(tx.blockTime).toBe(0);
    expect(tx.instructions[0]!.inner).toEqual([]);
  });
});

describe("raw shape", () => {
  test("account indexes resolve against accountKeys", async () => {
    const tx = ok(await read("dbc-create-pool.raw.json"));
    const create = tx.instructions[0]!;
    expect(create.programId).toBe(DBC);
    expect(create.accounts.slice(0, 6)).toEqual([
      "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew",
      "FhVo3mqL8PW5pH5U2CN4XE33DokiyZnUwuGpH2hmHLuM",
      PAYER,
      "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx",
      "So11111111111111111111111111111111111111112",
      "6df83M2zCRgxqVvjpUKMo8GWmGtcb6ojbZiNwjMBnb1i",
    ]);
    expect(create.accounts.length).toBe(16);
    expect(create.inner[14]!.programId).toBe(DBC);
    expect(create.inner[14]!.accounts).toEqual(["8Ks12pbrD6PXxfty1hVQiE9sc289zgU1zHkvXhrSdriF"]);
    expect(create.inner[7]!.programId).toBe("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s");
  });

  test("v0: loaded addresses extend the keys, writable then readonly", async () => {
    const base = await read("dbc-create-pool.raw.json");
    const v0 = clone(base);
    const keys: string[] = v0.transaction.message.accountKeys;
    // move the last three keys into lookup tables; every index keeps pointing at the same address
    const [w, r1, r2] = keys.splice(keys.length - 3, 3);
    v0.meta.loadedAddresses = { writable: [w], readonly: [r1, r2] };
    v0.version = 0;
    expect(ok(v0)).toEqual(ok(base));
  });

  test("accountKeys as {pubkey} objects", async () => {
    const base = await read("dbc-create-pool.raw.json");
    const objs = clone(base);
    objs.transaction.message.accountKeys = objs.transaction.message.accountKeys.map((k: string) => ({
      pubkey: k,
      signer: false,
      writable: false,
    }));
    expect(ok(objs)).toEqual(ok(base));
  });

  test("meta.err makes it failed", async () => {
    const raw = await read("dbc-create-pool.raw.json");
    raw.meta.err = { InstructionError: [0, "InvalidAccountData"] };
    expect(ok(raw).failed).toBe(true);
  });

  test("normalizeRpcTransaction reads the same shape and only that shape", async () => {
    const raw = await read("dbc-create-pool.raw.json");
    const r = normalizeRpcTransaction(raw);
    expect(r).toEqual({ ok: true, tx: ok(raw) });
    expect(normalizeRpcTransaction(await read("dbc-buy.enhanced.json")).ok).toBe(false);
    expect(normalizeRpcTransaction(null).ok).toBe(false);
  });
});

describe("malformed input is rejected with a reason, never thrown", () => {
  test("not an object", () => {
    for (const v of [null, undefined, 42, "tx", [], true]) reason(v);
    reason({});
  });

  test("enhanced", async () => {
    const base = await read("dbc-buy.enhanced.json");
    const cases: [string, (e: any) => void][] = [
      ["signature", (e) => delete e.signature],
      ["slot", (e) => (e.slot = -1)],
      ["slot", (e) => (e.slot = "415184133")],
      ["timestamp", (e) => (e.timestamp = 1.5)],
      ["feePayer", (e) => (e.feePayer = 7)],
      ["transactionError", (e) => delete e.transactionError],
      ["instructions", (e) => (e.instructions = {})],
      ["instructions[6].data", (e) => (e.instructions[6].data = "0OIl")],
      ["instructions[6].data", (e) => (e.instructions[6].data = null)],
      ["instructions[6].accounts", (e) => (e.instructions[6].accounts = "x")],
      ["instructions[6].accounts[2]", (e) => (e.instructions[6].accounts[2] = "short")],
      ["instructions[6].programId", (e) => delete e.instructions[6].programId],
      ["instructions[6].innerInstructions", (e) => (e.instructions[6].innerInstructions = 3)],
      ["instructions[6].innerInstructions[3]", (e) => (e.instructions[6].innerInstructions[3] = null)],
      ["instructions[6].innerInstructions[3].data", (e) => (e.instructions[6].innerInstructions[3].data = "l")],
    ];
    for (const [where, mutate] of cases) {
      const e = clone(base);
      mutate(e);
      expect(reason(e)).toContain(where);
    }
  });

  test("raw", async () => {
    const base = await read("dbc-create-pool.raw.json");
    const cases: [string, (r: any) => void][] = [
      ["meta", (r) => (r.meta = null)],
      ["meta.err", (r) => delete r.meta.err],
      ["transaction", (r) => (r.transaction = ["AQID", "base64"])],
      ["transaction.message", (r) => delete r.transaction.message],
      ["transaction.signatures[0]", (r) => (r.transaction.signatures = [])],
      ["accountKeys[3]", (r) => (r.transaction.message.accountKeys[3] = 3)],
      ["instructions[0].programIdIndex", (r) => (r.transaction.message.instructions[0].programIdIndex = 99)],
      ["instructions[0].accounts[1]", (r) => (r.transaction.message.instructions[0].accounts[1] = -1)],
      ["instructions[0].accounts[1]", (r) => (r.transaction.message.instructions[0].accounts[1] = 1.5)],
      ["instructions[0]", (r) => (r.transaction.message.instructions[0] = { programId: DBC, parsed: {} })],
      ["instructions[0].data", (r) => (r.transaction.message.instructions[0].data = "I")],
      ["meta.innerInstructions[0].index", (r) => (r.meta.innerInstructions[0].index = 1)],
      [
        "meta.innerInstructions[0].instructions[2].accounts[0]",
        (r) => (r.meta.innerInstructions[0].instructions[2].accounts[0] = 14),
      ],
      ["meta.loadedAddresses.writable", (r) => (r.meta.loadedAddresses.writable = "x")],
      ["slot", (r) => delete r.slot],
      ["blockTime", (r) => (r.blockTime = -5)],
    ];
    for (const [where, mutate] of cases) {
      const r = clone(base);
      mutate(r);
      expect(reason(r)).toContain(where);
    }
  });

  test("loaded addresses can make an index valid that was out of range", async () => {
    const r = await read("dbc-create-pool.raw.json");
    r.meta.innerInstructions[0].instructions[2].accounts[0] = 14;
    r.meta.loadedAddresses.readonly = [CP_AMM];
    expect(ok(r).instructions[0]!.inner[2]!.accounts[0]).toBe(CP_AMM);
  });
});
