/**
 * Tests: what the loopback RPC test double's chain actually paid. Every distinct transaction
 * it accepted is decoded (System transfers only) and counted when the double reports it
 * landed without error, so a test can check the ledger to the lamport: each recipient was
 * paid exactly its share, once.
 */
import { SystemInstruction, SystemProgram, Transaction } from "@solana/web3.js";
import type { startRpcTestDouble } from "../../../infra/testing/rpc-double";

type Double = Pick<ReturnType<typeof startRpcTestDouble>, "sent" | "url">;

export async function landedStatuses(rpcUrl: string, signatures: string[]): Promise<({ err: unknown } | null)[]> {
  if (signatures.length === 0) return [];
  const res = await fetch(rpcUrl, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSignatureStatuses", params: [signatures] }) });
  return ((await res.json()) as { result: { value: ({ err: unknown; confirmationStatus: string } | null)[] } }).result.value.map((s) =>
    s && s.confirmationStatus !== "processed" ? { err: s.err } : null,
  );
}

/** Lamports each recipient received from `payer` in landed, successful transactions; and how many such transactions. */
export async function paidOnChain(rpc: Double, payer: string): Promise<{ byRecipient: Map<string, bigint>; transactions: number; total: bigint }> {
  const distinct = new Map<string, Uint8Array>();
  for (const s of rpc.sent) if (!distinct.has(s.signature)) distinct.set(s.signature, s.raw);
  const signatures = [...distinct.keys()];
  const statuses = await landedStatuses(rpc.url, signatures);
  const byRecipient = new Map<string, bigint>();
  let transactions = 0;
  let total = 0n;
  signatures.forEach((sig, i) => {
    const st = statuses[i];
    if (!st || st.err !== null) return;
    const tx = Transaction.from(distinct.get(sig)!);
    let counted = false;
    for (const ix of tx.instructions) {
      if (!ix.programId.equals(SystemProgram.programId) || SystemInstruction.decodeInstructionType(ix) !== "Transfer") continue;
      const t = SystemInstruction.decodeTransfer(ix);
      if (t.fromPubkey.toBase58() !== payer) continue;
      const to = t.toPubkey.toBase58();
      byRecipient.set(to, (byRecipient.get(to) ?? 0n) + BigInt(t.lamports));
      total += BigInt(t.lamports);
      counted = true;
    }
    if (counted) transactions++;
  });
  return { byRecipient, transactions, total };
}
