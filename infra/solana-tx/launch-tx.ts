/**
 * Builds a coin's launch transaction with the Meteora DBC SDK: the pool init on a
 * platform config (payer = the user's wallet, poolCreator = the agent's vault) and
 * an optional first buy by the user in the same transaction, compiled into a v0
 * message (fee payer = the user) and signed by the new mint and the vault only.
 * The user's slot stays empty: they sign last. The SDK reads the config, the quote
 * mint and the buyer's token accounts through `connection`.
 * Throws RangeError for unusable input, Error for a missing config, and UpstreamError
 * when reading the chain fails (retryable).
 */
import { ComputeBudgetProgram, PACKET_DATA_SIZE, PublicKey, TransactionMessage, VersionedTransaction, type Connection, type Keypair } from "@solana/web3.js";
import { DynamicBondingCurveClient, deriveDbcPoolAddress, type FirstBuyParams } from "@meteora-ag/dynamic-bonding-curve-sdk";
import BN from "bn.js";
import { UpstreamError } from "./chain";

export type LaunchTxInput = {
  connection: Connection; // the SDK may read the config account through it
  config: string; // DBC PoolConfig address (base58)
  creator: string; // the user's wallet: fee payer, signs last; also the first-buy buyer
  mint: Keypair; // fresh base mint keypair
  vault: Keypair; // the agent's wallet: the pool creator (poolCreator) in DBC terms
  name: string;
  symbol: string;
  uri: string;
  firstBuyLamports: bigint | null; // quote amount in for an optional first buy by the creator in the same transaction
  blockhash: string;
  lastValidBlockHeight: number;
  /** priority fee in micro-lamports per compute unit (a ComputeBudget setComputeUnitPrice first); 0 or absent = none */
  priorityFeeMicroLamports?: number;
};
export type BuiltLaunchTx = {
  pool: string; // the DBC pool (virtual pool) address, derived
  message: Uint8Array; // exact v0 message bytes (VersionedMessage.serialize())
  transaction: Uint8Array; // serialized VersionedTransaction, signed by mint and vault, creator slot empty (zeros)
};

/** Metaplex metadata limits (bytes, UTF-8) that the DBC program's metadata CPI enforces. */
export const METADATA_LIMITS = { name: 32, symbol: 10, uri: 200 } as const;
/** Tolerance under the SDK's quote for the first buy's minimum out (the pool is new and created in the same transaction). */
export const FIRST_BUY_SLIPPAGE_BPS = 100;

// one SDK client (an Anchor program over the IDL) per connection
const clients = new WeakMap<Connection, DynamicBondingCurveClient>();
function clientFor(connection: Connection) {
  let client = clients.get(connection);
  if (!client) clients.set(connection, (client = new DynamicBondingCurveClient(connection, "confirmed")));
  return client;
}

function address(field: string, value: string): PublicKey {
  try {
    return new PublicKey(value);
  } catch {
    throw new RangeError(`${field} is not a Solana address`);
  }
}

/** The SDK's failures while it reads accounts over RPC: network or node trouble, retryable. */
async function fromChain<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw new UpstreamError(`${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}

export async function buildLaunchTransaction(input: LaunchTxInput): Promise<BuiltLaunchTx> {
  for (const field of ["name", "symbol", "uri"] as const) {
    const bytes = Buffer.byteLength(input[field], "utf8");
    if (bytes === 0 || bytes > METADATA_LIMITS[field]) throw new RangeError(`${field} must be 1-${METADATA_LIMITS[field]} bytes in UTF-8 (got ${bytes})`);
  }
  if (input.firstBuyLamports !== null && input.firstBuyLamports < 0n) throw new RangeError("firstBuyLamports must not be negative");
  const config = address("config", input.config);
  const creator = address("creator", input.creator);
  const client = clientFor(input.connection);

  const state = await fromChain("reading the DBC config", () => client.state.getPoolConfig(config));
  if (!state) throw new Error(`DBC config ${input.config} does not exist`);
  const pool = deriveDbcPoolAddress(state.quoteMint, input.mint.publicKey, config);

  const buy = input.firstBuyLamports ?? 0n;
  let firstBuyParam: FirstBuyParams | undefined;
  if (buy > 0n) {
    const amountIn = new BN(buy.toString());
    const quote = client.pool.getQuoteFromInputAmount({ config: state, swapBaseForQuote: false, amountIn, slippageBps: FIRST_BUY_SLIPPAGE_BPS });
    firstBuyParam = { buyer: creator, receiver: creator, buyAmount: amountIn, minimumAmountOut: quote.minimumAmountOut ?? new BN(0), referralTokenAccount: null };
  }
  const built = await fromChain("building the pool instructions", () => client.creator.createPoolWithFirstBuy({
    createPoolParam: {
      name: input.name,
      symbol: input.symbol,
      uri: input.uri,
      payer: creator,
      poolCreator: input.vault.publicKey,
      config,
      baseMint: input.mint.publicKey,
    },
    firstBuyParam,
  }));
  if (!built.instructions.some((ix) => ix.keys.some((k) => k.pubkey.equals(pool))))
    throw new Error(`the SDK's pool instruction does not use the derived pool ${pool.toBase58()}`);

  const fee = input.priorityFeeMicroLamports ?? 0;
  const instructions = fee > 0 ? [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: fee }), ...built.instructions] : built.instructions;
  const message = new TransactionMessage({ payerKey: creator, recentBlockhash: input.blockhash, instructions }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([input.mint, input.vault]);
  const transaction = tx.serialize();
  if (transaction.length > PACKET_DATA_SIZE) throw new RangeError(`launch transaction is ${transaction.length} bytes, over the ${PACKET_DATA_SIZE}-byte limit`);
  return { pool: pool.toBase58(), message: message.serialize(), transaction };
}
