/**
 * Tests: the accounts the platform's fee distribution reads, built from the real fixtures
 * (fixtures/README.md) with the programs' own layouts: the mainnet DBC PoolConfig with
 * another fee claimer (the test's treasury), and a DAMM v2 Position (cp-amm's `Position`
 * layout) with pending fees, held by a wallet through its position NFT (a Token-2022
 * account holding 1), as the cp-amm SDK finds a wallet's positions.
 */
import BN from "bn.js";
import { Keypair, PublicKey } from "@solana/web3.js";
import { TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import { cpAmmCoder, derivePositionAddress } from "@meteora-ag/cp-amm-sdk";
import { DBC_CONFIG_BYTES } from "../../../api/pools/testdata";
import { DAMM_V2 } from "../../../ingest/decoders/program-coder";
import { tokenAccount, type FakeAccount } from "../../../infra/testing/rpc-double";

export const CP_AMM_PROGRAM = DAMM_V2.programId;

/** The fixture PoolConfig with `feeClaimer` in place of the real one (bytes 40-72: after the discriminator and quote mint). */
export function poolConfigClaimedBy(feeClaimer: PublicKey): Uint8Array {
  const bytes = new Uint8Array(DBC_CONFIG_BYTES);
  bytes.set(feeClaimer.toBytes(), 40);
  return bytes;
}

/** The bytes of a DAMM v2 Position in `pool` for the NFT `nftMint`, with fees pending (no liquidity: the fees are all pending). */
export function dammPositionBytes(pool: string, nftMint: PublicKey, feeAPending: bigint, feeBPending: bigint): Uint8Array {
  const blank = Buffer.alloc(cpAmmCoder.accounts.size("Position"));
  Buffer.from(DAMM_V2.coder.accounts.accountDiscriminator("Position")).copy(blank);
  const p = cpAmmCoder.accounts.decode("Position", blank);
  p.pool = new PublicKey(pool);
  p.nft_mint = nftMint;
  p.fee_a_pending = new BN(feeAPending.toString());
  p.fee_b_pending = new BN(feeBPending.toString());
  // Anchor's accounts.encode writes into a 1000-byte buffer; the layout itself writes into ours
  const out = Buffer.alloc(blank.length);
  Buffer.from(DAMM_V2.coder.accounts.accountDiscriminator("Position")).copy(out);
  (cpAmmCoder.accounts as any).accountLayouts.get("Position").layout.encode(p, out, 8);
  return new Uint8Array(out);
}

/** A position in `pool` owned (through its NFT) by `owner`, with fees pending: the accounts to serve, and its addresses. */
export function dammPosition(o: { pool: string; owner: PublicKey; feeAPending?: bigint; feeBPending?: bigint }) {
  const nftMint = Keypair.generate().publicKey;
  const position = derivePositionAddress(nftMint);
  const nftAccount = Keypair.generate().publicKey;
  const accounts = new Map<string, FakeAccount>([
    [position.toBase58(), { lamports: 3_000_000, data: dammPositionBytes(o.pool, nftMint, o.feeAPending ?? 0n, o.feeBPending ?? 0n), owner: CP_AMM_PROGRAM }],
    [nftAccount.toBase58(), tokenAccount(nftMint.toBase58(), o.owner.toBase58(), 1n, TOKEN_2022_PROGRAM_ID.toBase58())],
  ]);
  return { position: position.toBase58(), nftMint, nftAccount: nftAccount.toBase58(), accounts };
}
