import { afterAll, describe, expect, test } from "bun:test";
import { Connection, Keypair, PACKET_DATA_SIZE, PublicKey, SYSVAR_INSTRUCTIONS_PUBKEY, VersionedMessage, VersionedTransaction } from "@solana/web3.js";
import { DynamicBondingCurveIdl, deriveDbcPoolAddress } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { DBC_PROGRAM, NATIVE_MINT, launchFixtureAccounts, startRpcTestDouble } from "../testing/rpc-double";
import { DBC, asBuffer } from "../../ingest/decoders/program-coder";
import { buildLaunchTransaction, type LaunchTxInput } from "./launch-tx";
import { UpstreamError } from "./chain";
import { verifyEd25519 } from "./verify";

const CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
const rpc = startRpcTestDouble(launchFixtureAccounts([CONFIG]));
const connection = new Connection(rpc.url, { commitment: "confirmed", disableRetryOnRateLimit: true });
afterAll(() => rpc.stop());

const idlIx = (name: string) => DynamicBondingCurveIdl.instructions.find((i) => i.name === name)!;
const disc = (name: string) => Buffer.from(idlIx(name).discriminator).toString("hex");

function input(over: Partial<LaunchTxInput> = {}): LaunchTxInput & { creatorKp: Keypair } {
  const creatorKp = Keypair.generate();
  return {
    connection,
    config: CONFIG,
    creator: creatorKp.publicKey.toBase58(),
    mint: Keypair.generate(),
    vault: Keypair.generate(),
    name: "Forecaster",
    symbol: "FCST",
    uri: "https://agents.example/metadata/forecaster.json",
    firstBuyLamports: null,
    blockhash: rpc.blockhash(),
    lastValidBlockHeight: rpc.blockHeight() + 150,
    creatorKp,
    ...over,
  };
}

/** outer instructions with their program id and resolved account keys */
function instructions(message: VersionedMessage) {
  const keys = message.staticAccountKeys.map((k) => k.toBase58());
  return message.compiledInstructions.map((ix) => ({
    program: keys[ix.programIdIndex]!,
    accounts: ix.accountKeyIndexes.map((i) => keys[i]!),
    data: ix.data,
    disc: Buffer.from(ix.data.subarray(0, 8)).toString("hex"),
  }));
}

describe("launch transaction built with the DBC SDK", () => {
  test("pool init only: creator pays and signs last, mint and vault signed, pool derived", async () => {
    const inp = input();
    const before = rpc.calls.length;
    const built = await buildLaunchTransaction(inp);
    // the SDK read the config and the quote mint over RPC, nothing else
    expect(new Set(rpc.calls.slice(before).map((c) => c.method))).toEqual(new Set(["getAccountInfo"]));

    const message = VersionedMessage.deserialize(built.message);
    expect(message.version).toBe(0);
    expect(message.addressTableLookups).toHaveLength(0);
    expect(message.recentBlockhash).toBe(inp.blockhash);
    expect(message.staticAccountKeys[0]!.toBase58()).toBe(inp.creator); // fee payer
    expect(message.header.numRequiredSignatures).toBe(3);
    const signers = message.staticAccountKeys.slice(0, 3).map((k) => k.toBase58());
    expect(new Set(signers)).toEqual(new Set([inp.creator, inp.mint.publicKey.toBase58(), inp.vault.publicKey.toBase58()]));

    const tx = VersionedTransaction.deserialize(built.transaction);
    expect(Buffer.from(tx.message.serialize()).equals(Buffer.from(built.message))).toBe(true);
    expect(tx.signatures[0]!.every((b) => b === 0)).toBe(true); // the creator's slot is empty
    for (let i = 1; i < 3; i++) expect(verifyEd25519(message.staticAccountKeys[i]!.toBytes(), built.message, tx.signatures[i]!)).toBe(true);

    const ixs = instructions(message);
    expect(ixs).toHaveLength(1);
    const init = ixs[0]!;
    expect(init.program).toBe(DBC_PROGRAM);
    expect(init.disc).toBe(disc("initialize_virtual_pool_with_spl_token"));

    const pool = deriveDbcPoolAddress(new PublicKey(NATIVE_MINT), inp.mint.publicKey, new PublicKey(CONFIG)).toBase58();
    expect(built.pool).toBe(pool);
    // accounts by their IDL names, through the ingest decoders' tables
    const at = (name: string) => init.accounts[DBC.ixByName.get("initialize_virtual_pool_with_spl_token")!.accountIndex.get(name)!];
    expect(at("pool")).toBe(pool);
    expect(at("config")).toBe(CONFIG);
    expect(at("creator")).toBe(inp.vault.publicKey.toBase58()); // the vault is DBC's pool creator
    expect(at("payer")).toBe(inp.creator);
    expect(at("base_mint")).toBe(inp.mint.publicKey.toBase58());
    expect(at("quote_mint")).toBe(NATIVE_MINT);
    const args = DBC.coder.instruction.decode(asBuffer(init.data))!;
    expect(args.name).toBe("initialize_virtual_pool_with_spl_token");
    expect((args.data as any).params).toEqual({ name: "Forecaster", symbol: "FCST", uri: "https://agents.example/metadata/forecaster.json" });
  });

  test("with a first buy: the creator's swap follows in the same transaction", async () => {
    const inp = input({ firstBuyLamports: 1_000_000_000n });
    const built = await buildLaunchTransaction(inp);
    const message = VersionedMessage.deserialize(built.message);
    expect(message.header.numRequiredSignatures).toBe(3);
    const ixs = instructions(message);
    // init, create wSOL ATA, create coin ATA, wrap (transfer + sync), swap, unwrap (close)
    expect(ixs.map((i) => i.program)).toEqual([
      DBC_PROGRAM,
      "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
      "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
      "11111111111111111111111111111111",
      "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      DBC_PROGRAM,
      "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    ]);
    const swap = ixs[5]!;
    expect(swap.disc).toBe(disc("swap"));
    const swapAt = (name: string) => swap.accounts[DBC.ixByName.get("swap")!.accountIndex.get(name)!];
    expect(swapAt("pool")).toBe(built.pool);
    expect(swapAt("payer")).toBe(inp.creator);
    expect(swapAt("base_mint")).toBe(inp.mint.publicKey.toBase58());
    // the SDK always asks for the first-swap-with-min-fee check: the instructions sysvar rides along
    expect(swap.accounts).toContain(SYSVAR_INSTRUCTIONS_PUBKEY.toBase58());
    const decoded = DBC.coder.instruction.decode(asBuffer(swap.data))!;
    const params = (decoded.data as any).params;
    expect(BigInt(params.amount_in.toString())).toBe(1_000_000_000n);
    // minimum out: the SDK's quote for a fresh pool, less 1 %
    const minOut = BigInt(params.minimum_amount_out.toString());
    expect(minOut).toBeGreaterThan(0n);
    expect(minOut).toBe(30142135153297n);
    // the transfer wraps exactly the first buy
    expect(Buffer.from(ixs[3]!.data).readBigUInt64LE(4)).toBe(1_000_000_000n);

    const tx = VersionedTransaction.deserialize(built.transaction);
    expect(tx.signatures[0]!.every((b) => b === 0)).toBe(true);
    for (let i = 1; i < 3; i++) expect(verifyEd25519(message.staticAccountKeys[i]!.toBytes(), built.message, tx.signatures[i]!)).toBe(true);
  });

  test("longest metadata with a first buy still fits one packet; over-long fields are refused", async () => {
    const built = await buildLaunchTransaction(
      input({ name: "N".repeat(32), symbol: "S".repeat(10), uri: "https://agents.example/" + "u".repeat(177), firstBuyLamports: 2_000_000_000n }),
    );
    expect(built.transaction.length).toBeLessThanOrEqual(PACKET_DATA_SIZE);
    await expect(buildLaunchTransaction(input({ name: "é".repeat(17) }))).rejects.toThrow(/name must be 1-32 bytes/);
    await expect(buildLaunchTransaction(input({ uri: "https://x/" + "u".repeat(191) }))).rejects.toThrow(/uri must be 1-200 bytes/);
    await expect(buildLaunchTransaction(input({ firstBuyLamports: -1n }))).rejects.toThrow(/negative/);
  });

  test("a priority fee is a ComputeBudget setComputeUnitPrice first; the launch's own instructions follow unchanged", async () => {
    const inp = input({ firstBuyLamports: 500_000_000n, uri: "https://api.example/v1/media/" + "a".repeat(64) + ".json", priorityFeeMicroLamports: 25_000 });
    const built = await buildLaunchTransaction(inp);
    const ixs = instructions(VersionedTransaction.deserialize(built.transaction).message);
    expect(ixs[0]!.program).toBe("ComputeBudget111111111111111111111111111111");
    const data = Buffer.from(ixs[0]!.data);
    expect(data[0]).toBe(3); // SetComputeUnitPrice
    expect(data.readBigUInt64LE(1)).toBe(25_000n);
    expect(ixs[1]!.disc).toBe(disc("initialize_virtual_pool_with_spl_token"));
    expect(ixs.some((ix) => ix.disc === disc("swap"))).toBe(true);
    expect(built.transaction.length).toBeLessThanOrEqual(PACKET_DATA_SIZE);
    const none = instructions(VersionedTransaction.deserialize((await buildLaunchTransaction(input({ priorityFeeMicroLamports: 0 }))).transaction).message);
    expect(none.some((ix) => ix.program.startsWith("ComputeBudget"))).toBe(false);
  });

  test("a zero first buy is no first buy; an unknown config is an error", async () => {
    const built = await buildLaunchTransaction(input({ firstBuyLamports: 0n }));
    expect(instructions(VersionedMessage.deserialize(built.message))).toHaveLength(1);
    await expect(buildLaunchTransaction(input({ config: Keypair.generate().publicKey.toBase58() }))).rejects.toThrow(/does not exist/);
    await expect(buildLaunchTransaction(input({ creator: "not-an-address" }))).rejects.toThrow(RangeError);
  });

  test("an RPC that does not answer makes the build an UpstreamError (retryable)", async () => {
    const down = new Connection("http://127.0.0.1:1", { commitment: "confirmed", disableRetryOnRateLimit: true });
    const err = await buildLaunchTransaction(input({ connection: down })).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/reading the DBC config/);
  });

  test("two builds for the same launch differ only by what changed (new mint → new pool)", async () => {
    const inp = input();
    const a = await buildLaunchTransaction(inp);
    const b = await buildLaunchTransaction({ ...inp });
    expect(Buffer.from(a.message).equals(Buffer.from(b.message))).toBe(true);
    const c = await buildLaunchTransaction({ ...inp, mint: Keypair.generate() });
    expect(c.pool).not.toBe(a.pool);
  });
});
