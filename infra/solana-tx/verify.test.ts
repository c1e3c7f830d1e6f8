import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Connection, Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { launchFixtureAccounts, startRpcTestDouble } from "../testing/rpc-double";
import { buildLaunchTransaction, type BuiltLaunchTx } from "./launch-tx";
import { checkSignedTransaction } from "./verify";

const CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
const rpc = startRpcTestDouble(launchFixtureAccounts([CONFIG]));
const creator = Keypair.generate();
const mint = Keypair.generate();
const vault = Keypair.generate();
let built: BuiltLaunchTx;

beforeAll(async () => {
  built = await buildLaunchTransaction({
    connection: new Connection(rpc.url, "confirmed"),
    config: CONFIG,
    creator: creator.publicKey.toBase58(),
    mint,
    vault,
    name: "Verifier",
    symbol: "VRFY",
    uri: "https://agents.example/metadata/verifier.json",
    firstBuyLamports: 500_000_000n,
    blockhash: rpc.blockhash(),
    lastValidBlockHeight: rpc.blockHeight() + 150,
  });
});
afterAll(() => rpc.stop());

/** what the user's wallet does: add its signature, change nothing else */
function creatorSigns(bytes = built.transaction): VersionedTransaction {
  const tx = VersionedTransaction.deserialize(bytes);
  tx.sign([creator]);
  return tx;
}
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("checking the transaction the creator signed", () => {
  test("signed by the creator, unchanged → ok, with the fee payer's signature as id", () => {
    const tx = creatorSigns();
    const r = checkSignedTransaction(b64(tx.serialize()), built.message);
    expect(r).toEqual({ ok: true, signature: bs58.encode(tx.signatures[0]!), raw: tx.serialize() });
  });

  test("one byte of the message changed → TX_MISMATCH", () => {
    const raw = creatorSigns().serialize();
    const t = raw.slice();
    t[t.length - 5]! ^= 1; // inside the message (instruction data)
    const r = checkSignedTransaction(b64(t), built.message);
    expect(r).toMatchObject({ ok: false, code: "TX_MISMATCH" });
    if (!r.ok) expect(r.message).toMatch(/not the one built: its message differs from byte \d+/);
    // an intact signed transaction against another expected message (e.g. after a rebuild)
    const rebuilt = built.message.slice();
    rebuilt[rebuilt.length - 1]! ^= 1;
    expect(checkSignedTransaction(b64(raw), rebuilt)).toMatchObject({ ok: false, code: "TX_MISMATCH" });
    expect(checkSignedTransaction(b64(raw), built.message.subarray(0, 100))).toMatchObject({ ok: false, code: "TX_MISMATCH" });
  });

  test("one byte of a signature changed → BAD_SIGNATURE naming the signer", () => {
    const tx = creatorSigns();
    const keys = tx.message.staticAccountKeys;
    for (const i of [0, 1, 2]) {
      const raw = tx.serialize();
      raw[1 + i * 64 + 10]! ^= 0x40;
      const r = checkSignedTransaction(b64(raw), built.message);
      expect(r).toMatchObject({ ok: false, code: "BAD_SIGNATURE" });
      if (!r.ok) expect(r.message).toContain(keys[i]!.toBase58());
    }
  });

  test("creator has not signed → MISSING_SIGNATURE naming the fee payer", () => {
    const r = checkSignedTransaction(b64(built.transaction), built.message);
    expect(r).toMatchObject({ ok: false, code: "MISSING_SIGNATURE" });
    if (!r.ok) expect(r.message).toContain(`${creator.publicKey.toBase58()} (the fee payer`);
  });

  test("an added instruction, everything re-signed by all → TX_MISMATCH", () => {
    const original = VersionedMessage.deserialize(built.message);
    const keys = original.staticAccountKeys;
    const ixs = original.compiledInstructions.map(
      (ix) =>
        new TransactionInstruction({
          programId: keys[ix.programIdIndex]!,
          keys: ix.accountKeyIndexes.map((k) => ({ pubkey: keys[k]!, isSigner: original.isAccountSigner(k), isWritable: original.isAccountWritable(k) })),
          data: Buffer.from(ix.data),
        }),
    );
    const thief = Keypair.generate().publicKey;
    ixs.push(SystemProgram.transfer({ fromPubkey: creator.publicKey, toPubkey: thief, lamports: 1_000_000 }));
    const memo = new TransactionInstruction({ programId: new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"), keys: [], data: Buffer.from("hi") });
    for (const extra of [[], [memo]]) {
      const message = new TransactionMessage({ payerKey: creator.publicKey, recentBlockhash: original.recentBlockhash, instructions: [...ixs, ...extra] }).compileToV0Message();
      const tx = new VersionedTransaction(message);
      tx.sign([creator, mint, vault]);
      const r = checkSignedTransaction(b64(tx.serialize()), built.message);
      expect(r).toMatchObject({ ok: false, code: "TX_MISMATCH" });
    }
  });

  test("garbage, non-base64, truncated, trailing bytes, empty → INVALID_TRANSACTION (never throws)", () => {
    const raw = creatorSigns().serialize();
    const cases: unknown[] = [
      "",
      "not base64 at all!",
      "AAAA====",
      b64(raw).slice(0, -1), // broken padding
      b64(raw.subarray(0, 300)), // truncated
      b64(raw.subarray(0, 10)),
      b64(new Uint8Array([...raw, 0, 0])), // trailing bytes
      b64(new Uint8Array(64)),
      b64(crypto.getRandomValues(new Uint8Array(700))),
      "A".repeat(5000), // longer than any transaction
      " " + b64(raw),
      null,
      42,
    ];
    for (const c of cases) {
      const r = checkSignedTransaction(c as string, built.message);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.code).toBe("INVALID_TRANSACTION");
        expect(r.message.length).toBeGreaterThan(10);
      }
    }
  });
});
