/**
 * Finding the transactions that fail a write on their own. When a group write fails,
 * its envelopes are written again in halves, and the halves of a failing half, down to
 * one transaction: the rest is stored, and each transaction that still fails alone is
 * returned with its error. Envelopes of one signature always travel together.
 *
 * When the failure is not one transaction's (an engine refusing every write), every
 * part fails: the search gives up with the group's error once about two parts per
 * level have failed and nothing was written, instead of trying each transaction.
 */
import type { TxEnvelope } from "../ingest/contract/envelope";

export type Failing = { signature: string; error: unknown };
export type Bisected<R> = { written: R[]; failing: Failing[] };

/** `failedWith`: the error of the group's own write, which has just failed; thrown when the search gives up. */
export async function bisectFailures<R>(envelopes: readonly TxEnvelope[], failedWith: unknown, write: (part: TxEnvelope[]) => Promise<R>): Promise<Bisected<R>> {
  const bySignature = new Map<string, TxEnvelope[]>();
  for (const e of envelopes) {
    const same = bySignature.get(e.signature);
    if (same) same.push(e);
    else bySignature.set(e.signature, [e]);
  }
  const out: Bisected<R> = { written: [], failing: [] };
  const giveUpAfter = 2 * Math.ceil(Math.log2(bySignature.size + 1)) + 2;
  let failures = 0;
  const failed = async (units: TxEnvelope[][], error: unknown): Promise<void> => {
    if (units.length === 1) {
      out.failing.push({ signature: units[0]![0]!.signature, error });
      return;
    }
    const half = Math.ceil(units.length / 2);
    await visit(units.slice(0, half));
    await visit(units.slice(half));
  };
  const visit = async (units: TxEnvelope[][]): Promise<void> => {
    try {
      out.written.push(await write(units.flat()));
    } catch (error) {
      if (out.written.length === 0 && ++failures >= giveUpAfter) throw failedWith;
      await failed(units, error);
    }
  };
  await failed([...bySignature.values()], failedWith);
  return out;
}
