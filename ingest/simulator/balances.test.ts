/**
 * The balances the simulator's payloads carry (`accountData`) against what the chain would
 * show, checked from the payloads themselves: lamports are conserved but for the fee, each
 * coin's token deltas cancel but for its mint (pool creation) and burns, wrapped SOL moves
 * lamports with it, the fee payer pays the fee, and the ledger is what the payloads add up
 * to and what the simulator's own model holds.
 */
import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { DBC_IDL } from "./encode";
import { normalizeWebhookTransaction } from "../normalize";
import { createSimulator, fixtureSimConfigs, type EnhancedTransaction, type Intent } from "./index";
import { Market } from "./market";
import { CpAmmIdl } from "@meteora-ag/cp-amm-sdk";

const WSOL = "So11111111111111111111111111111111111111112";
const SYSTEM = "11111111111111111111111111111111";
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const TOKEN_RENT = 2_039_280n; // rent-exempt minimum of a 165-byte token account, as in the devnet fixtures
// The pool authorities (the vaults' owners) as the SDK IDLs fix them, and as the devnet fixtures show them.
const DBC_AUTHORITY = "FhVo3mqL8PW5pH5U2CN4XE33DokiyZnUwuGpH2hmHLuM";
const DAMM_AUTHORITY = "HLnpSz9h2S4hiLQ43rnSD9XkcUThA7B8hQMKmDaiTLcC";

const SEED = 31;
const sim = createSimulator({ seed: SEED, configs: fixtureSimConfigs(SEED, { creatorTradingFeePercentage: 30 }), pools: 8, recordIntents: true, recordLedger: true });
const txs: EnhancedTransaction[] = sim.next(12_000);
const st = sim.state();
const bySig = new Map<string, Intent[]>();
for (const i of st.intents!) bySig.set(i.signature, [...(bySig.get(i.signature) ?? []), i]);

const u64At = (data: Uint8Array, offset: number) => new DataView(data.buffer, data.byteOffset).getBigUint64(offset, true);

/** Burned atoms per mint, read from the Burn instructions (SPL Token tag 8). */
function burnedIn(t: EnhancedTransaction): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const ix of t.instructions) {
    const data = bs58.decode(ix.data);
    if (ix.programId.startsWith("Token") && data[0] === 8) out.set(ix.accounts[1]!, (out.get(ix.accounts[1]!) ?? 0n) + u64At(data, 1));
  }
  return out;
}

/** System transfers (tag 2) among the outer instructions. */
function systemTransfers(t: EnhancedTransaction): { from: string; to: string; lamports: bigint }[] {
  return t.instructions
    .filter((ix) => ix.programId === SYSTEM && bs58.decode(ix.data)[0] === 2)
    .map((ix) => ({ from: ix.accounts[0]!, to: ix.accounts[1]!, lamports: u64At(bs58.decode(ix.data), 4) }));
}

/** Accounts the ATA program creates in the transaction (its CreateAccount CPI), with who paid and for which mint. */
function createdAtas(t: EnhancedTransaction): { payer: string; account: string; mint: string }[] {
  return t.instructions
    .filter((ix) => ix.programId === ATA_PROGRAM && ix.innerInstructions.length > 0)
    .map((ix) => ({ payer: ix.accounts[0]!, account: ix.accounts[1]!, mint: ix.accounts[3]! }));
}

describe("accountData", () => {
  test("the vaults' owners are the pool authorities of the SDK IDLs", () => {
    const m = new Market({ seed: 1, configs: fixtureSimConfigs(1) });
    expect(m.codecs.dbc.fixed("swap2", "pool_authority")).toBe(DBC_AUTHORITY);
    expect(m.codecs.damm.fixed("swap2", "pool_authority")).toBe(DAMM_AUTHORITY);
    expect(DBC_IDL.instructions.find((i) => i.name === "swap2")!.accounts.find((a) => a.name === "pool_authority")).toMatchObject({ address: DBC_AUTHORITY });
    expect(CpAmmIdl.instructions.find((i) => i.name === "swap2")!.accounts.find((a) => a.name === "pool_authority")).toMatchObject({ address: DAMM_AUTHORITY });
  });

  test("lamports are conserved but for the fee; the fee payer comes first and pays it", () => {
    for (const t of txs) {
      expect(t.accountData[0]!.account).toBe(t.feePayer);
      expect(t.accountData.reduce((s, a) => s + a.nativeBalanceChange, 0)).toBe(-t.fee);
      expect(new Set(t.accountData.map((a) => a.account)).size).toBe(t.accountData.length);
    }
  });

  test("each coin's token deltas cancel out, but for the supply minted at creation and what is burned", () => {
    const supply = new Map<string, bigint>();
    for (const t of txs) {
      const sums = new Map<string, bigint>();
      for (const a of t.accountData)
        for (const c of a.tokenBalanceChanges) {
          expect(c.tokenAccount).toBe(a.account);
          expect(c.rawTokenAmount.tokenAmount).toMatch(/^-?[1-9][0-9]*$/);
          if (c.mint !== WSOL) sums.set(c.mint, (sums.get(c.mint) ?? 0n) + BigInt(c.rawTokenAmount.tokenAmount));
        }
      const burned = burnedIn(t);
      const created = (bySig.get(t.signature) ?? []).find((i) => i.kind === "pool_created");
      for (const [mint, sum] of sums) {
        if (created?.kind === "pool_created" && created.mint === mint) supply.set(mint, sum + (burned.get(mint) ?? 0n));
        else expect(sum).toBe(-(burned.get(mint) ?? 0n));
      }
    }
    // every coin got the config's whole supply: 1e9 tokens at 6 decimals, as the fixture PoolConfig mints
    expect(supply.size).toBe(st.pools.length);
    for (const p of st.pools) expect(supply.get(p.mint)).toBe(1_000_000_000_000_000n);
  });

  test("wrapped SOL moves its account's lamports: native change = token change (+ rent when the account is created)", () => {
    let seen = 0;
    for (const t of txs)
      for (const a of t.accountData)
        for (const c of a.tokenBalanceChanges) {
          if (c.mint !== WSOL) continue;
          seen++;
          const extra = BigInt(a.nativeBalanceChange) - BigInt(c.rawTokenAmount.tokenAmount);
          expect([0n, TOKEN_RENT]).toContain(extra);
          expect([DBC_AUTHORITY, DAMM_AUTHORITY]).toContain(c.userAccount);
        }
    expect(seen).toBeGreaterThan(5000);
  });

  test("a trader's SOL moves by the trade's quote amount (plus the rent of a new coin account), its coin account by the base amount", () => {
    let buys = 0;
    for (const t of txs) {
      const trades = (bySig.get(t.signature) ?? []).filter((i) => i.kind === "trade");
      if (trades.length !== 1 || trades[0]!.kind !== "trade") continue;
      const tr = trades[0]!;
      if (tr.trader !== t.feePayer || tr.trader === st.treasury) continue;
      const solChange = BigInt(t.accountData[0]!.nativeBalanceChange) + BigInt(t.fee);
      const rents = BigInt(createdAtas(t).length - 1) * TOKEN_RENT; // the wrapped-SOL account's rent comes back when it is closed
      const creation = (bySig.get(t.signature) ?? []).some((i) => i.kind === "pool_created");
      if (!creation) expect(solChange).toBe(tr.side === "buy" ? -tr.amountQuote - rents : tr.amountQuote - rents);
      const coin = t.accountData.flatMap((a) => a.tokenBalanceChanges).filter((c) => c.mint === tr.mint && c.userAccount === tr.trader);
      expect(coin.length).toBe(1);
      expect(BigInt(coin[0]!.rawTokenAmount.tokenAmount)).toBe(tr.side === "buy" ? tr.amountBase : -tr.amountBase);
      if (tr.side === "buy") buys++;
    }
    expect(buys).toBeGreaterThan(3000);
  });

  test("normalize reads the payloads' balances: one token balance per moved account, the fee payer's SOL change with the fee", () => {
    for (const t of txs.slice(0, 3000)) {
      const n = normalizeWebhookTransaction(JSON.parse(JSON.stringify(t)));
      if (!n.ok) throw new Error(n.reason);
      expect(n.tx.fee).toBe(t.fee);
      const meant = (bySig.get(t.signature) ?? []).filter((i) => i.kind === "token_balance");
      expect(n.tx.tokenBalances.map((b, ix) => ({ kind: "token_balance", signature: t.signature, ix, ...b }))).toEqual(meant as never);
      const payer = (bySig.get(t.signature) ?? []).find((i) => i.kind === "sol_balance");
      const own = n.tx.nativeBalances.find((b) => b.account === t.feePayer)!.delta + BigInt(t.fee);
      expect(payer?.kind === "sol_balance" ? payer.delta : 0n).toBe(own);
      // every System transfer is meant as a sol_transfer, in order
      const transfers = (bySig.get(t.signature) ?? []).filter((i) => i.kind === "sol_transfer").map((i) => (i.kind === "sol_transfer" ? { from: i.from, to: i.to, lamports: i.lamports } : null));
      expect(transfers).toEqual(systemTransfers(t));
    }
  });

  test("the same seed gives the same balances", () => {
    const again = createSimulator({ seed: SEED, configs: fixtureSimConfigs(SEED, { creatorTradingFeePercentage: 30 }), pools: 8 }).next(2000);
    expect(JSON.stringify(again.map((t) => t.accountData))).toBe(JSON.stringify(txs.slice(0, 2000).map((t) => t.accountData)));
  });
});

describe("ledger", () => {
  const ledger = st.ledger;

  test("it is what the payloads add up to, and no account goes negative on the way", () => {
    const running = new Map<string, bigint>();
    for (const t of txs)
      for (const a of t.accountData)
        for (const c of a.tokenBalanceChanges) {
          const v = (running.get(c.tokenAccount) ?? 0n) + BigInt(c.rawTokenAmount.tokenAmount);
          expect(v).toBeGreaterThanOrEqual(0n);
          running.set(c.tokenAccount, v);
        }
    const expected = new Map([...ledger.accounts!].map(([k, v]) => [k, v.amount]));
    expect(running).toEqual(expected);
  });

  test("it matches the simulator's own model: every holding, and the curve vaults' reserves plus unclaimed fees", () => {
    const m = new Market({ seed: 5, configs: fixtureSimConfigs(5, { creatorTradingFeePercentage: 30 }), pools: 6, recordLedger: true });
    for (let i = 0; i < 8000; i++) m.step();
    const accounts = m.ledger.accounts!;
    const at = (account: string) => accounts.get(account)?.amount ?? 0n;
    let holdings = 0;
    let onCurve = 0;
    for (const p of m.pools) {
      for (const h of p.holdings.values()) {
        expect(at(h.ata)).toBe(h.amount);
        expect(accounts.get(h.ata)?.owner ?? m.wallets[h.wallet]!.address).toBe(m.wallets[h.wallet]!.address);
        holdings++;
      }
      if (p.phase !== "curve") continue;
      onCurve++;
      const c = p.curve;
      expect(at(p.baseVault)).toBe(c.baseReserve + c.partnerBaseFee + c.creatorBaseFee + c.protocolBaseFee);
      expect(at(p.quoteVault)).toBe(c.quoteReserve + c.partnerQuoteFee + c.creatorQuoteFee + c.protocolQuoteFee);
    }
    expect(holdings).toBeGreaterThan(500);
    expect(onCurve).toBeGreaterThan(0);
    expect(m.pools.some((p) => p.phase === "graduated")).toBe(true);
    // wallets that never traded hold coins they were sent
    const receivers = new Set(m.wallets.slice(m.traders).map((w) => w.address));
    expect([...accounts.values()].some((b) => receivers.has(b.owner) && b.amount > 0n)).toBe(true);
    // balancesOf sums an owner's accounts and leaves out the empty ones
    const p0 = m.pools[0]!;
    const owners = m.ledger.balancesOf(p0.mint);
    expect([...owners.values()].every((v) => v > 0n)).toBe(true);
    expect([...owners.values()].reduce((a, b) => a + b, 0n)).toBe([...accounts.values()].filter((b) => b.mint === p0.mint).reduce((a, b) => a + b.amount, 0n));
  });

  test("the treasury: claims, payouts by the split, buybacks burned; its SOL is what they leave", () => {
    const l = ledger.treasury;
    const treasury = st.treasury;
    // claimed = the quote of its fee claims, read from the claim intents
    const claimed = st.intents!.filter((i) => i.kind === "fee_claim" && i.claimer === treasury).reduce((s, i) => s + (i.kind === "fee_claim" ? i.quoteAmount : 0n), 0n);
    expect(l.claimedLamports).toBe(claimed);
    expect(claimed).toBeGreaterThan(0n);
    // payouts: System transfers from the treasury, to pool creators (vaults) and pool payers (creators)
    const creators = new Set(st.intents!.filter((i) => i.kind === "pool_created").map((i) => (i.kind === "pool_created" ? i.creator : "")));
    const payers = new Set(st.intents!.filter((i) => i.kind === "pool_created").map((i) => (i.kind === "pool_created" ? i.payer : "")));
    let vaults = 0n;
    let paid = 0n;
    let native = 0n;
    let rent = 0n;
    for (const t of txs) {
      for (const s of systemTransfers(t)) {
        if (s.from !== treasury || s.to === t.instructions.find((ix) => ix.programId === ATA_PROGRAM)?.accounts[1]) continue;
        if (creators.has(s.to)) vaults += s.lamports;
        else if (payers.has(s.to)) paid += s.lamports;
        else throw new Error(`treasury paid ${s.to}, neither a vault nor a creator`);
      }
      native += BigInt(t.accountData.find((a) => a.account === treasury)?.nativeBalanceChange ?? 0);
      // its wrapped-SOL accounts are closed in the same transaction (their rent comes back), its coin accounts stay
      rent += BigInt(createdAtas(t).filter((c) => c.payer === treasury && c.mint !== WSOL).length) * TOKEN_RENT;
    }
    expect(l.sentToVaultsLamports).toBe(vaults);
    expect(l.paidToCreatorsLamports).toBe(paid);
    expect(vaults).toBeGreaterThan(0n);
    // by the split: never more than the shares of what was claimed
    expect(vaults).toBeLessThanOrEqual((claimed * 70n) / 100n);
    expect(paid).toBeLessThanOrEqual((claimed * 15n) / 100n);
    expect(l.buybackLamports).toBeLessThanOrEqual((claimed * 15n) / 100n);
    // buybacks: the treasury's DBC / DAMM v2 buys of the platform token, all burned
    const buys = st.intents!.filter((i) => i.kind === "trade" && i.trader === treasury);
    expect(buys.every((i) => i.kind === "trade" && i.mint === st.platformTokenMint && i.side === "buy")).toBe(true);
    expect(buys.reduce((s, i) => s + (i.kind === "trade" ? i.amountQuote : 0n), 0n)).toBe(l.buybackLamports);
    expect(buys.reduce((s, i) => s + (i.kind === "trade" ? i.amountBase : 0n), 0n)).toBe(l.buybackAtoms);
    const burns = st.intents!.filter((i) => i.kind === "burn" && i.authority === treasury);
    expect(burns.reduce((s, i) => s + (i.kind === "burn" ? i.amount : 0n), 0n)).toBe(l.burnedAtoms);
    expect(l.burnedAtoms).toBe(l.buybackAtoms);
    expect(ledger.buybacks.length).toBe(st.counts.buybacks);
    // its SOL: claimed in, payouts, buybacks, fees and the rent of the coin accounts it opened out
    expect(native).toBe(claimed - vaults - paid - l.buybackLamports - l.feesLamports - rent);
  });
});
