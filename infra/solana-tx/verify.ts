/**
 * Checks a transaction a user signed and sent back: it must be base64 of a
 * VersionedTransaction whose message is byte-identical to the one the platform
 * built, with every required signature present and verifying (ed25519 through
 * node:crypto). Never throws: every problem comes back as a code and a message.
 */
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { PACKET_DATA_SIZE, VersionedTransaction, type PublicKey } from "@solana/web3.js";
import bs58 from "bs58";

export type SignedCheck =
  | { ok: true; signature: string /* base58 of the fee payer's signature = tx id */; raw: Uint8Array }
  | { ok: false; code: "INVALID_TRANSACTION" | "TX_MISMATCH" | "MISSING_SIGNATURE" | "BAD_SIGNATURE"; message: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** true when `signature` is a valid ed25519 signature of `message` by `signer` */
export function verifyEd25519(signer: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, signer]), format: "der", type: "spki" });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

const invalid = (message: string): SignedCheck => ({ ok: false, code: "INVALID_TRANSACTION", message });

/** Decodes base64 (strict alphabet, padded) into a VersionedTransaction, or explains why not. */
export function decodeTransaction(base64: unknown): { tx: VersionedTransaction; raw: Uint8Array } | { error: string } {
  if (typeof base64 !== "string" || base64.length === 0) return { error: "signedTransaction must be a non-empty base64 string" };
  // a Solana transaction is at most PACKET_DATA_SIZE bytes: anything longer is not one
  if (base64.length > Math.ceil(PACKET_DATA_SIZE / 3) * 4) return { error: `signedTransaction is longer than a Solana transaction can be (${PACKET_DATA_SIZE} bytes)` };
  if (!BASE64.test(base64)) return { error: "signedTransaction is not valid base64 (standard alphabet, with padding)" };
  const raw = new Uint8Array(Buffer.from(base64, "base64"));
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(raw);
  } catch (e) {
    return { error: `signedTransaction is base64 but not a Solana transaction (${(e as Error).message})` };
  }
  let again: Uint8Array;
  try {
    again = tx.serialize();
  } catch (e) {
    return { error: `signedTransaction could not be re-encoded (${(e as Error).message})` };
  }
  if (!Buffer.from(again).equals(Buffer.from(raw))) return { error: "signedTransaction has bytes after the end of the transaction or is truncated" };
  return { tx, raw };
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

export function checkSignedTransaction(base64: string, expectedMessage: Uint8Array): SignedCheck {
  const decoded = decodeTransaction(base64);
  if ("error" in decoded) return invalid(decoded.error);
  const { tx, raw } = decoded;

  let message: Uint8Array;
  let signers: PublicKey[];
  try {
    message = tx.message.serialize();
    signers = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures);
  } catch (e) {
    return invalid(`signedTransaction's message could not be read (${(e as Error).message})`);
  }
  if (!Buffer.from(message).equals(Buffer.from(expectedMessage))) {
    const at = firstDifference(message, expectedMessage);
    return {
      ok: false,
      code: "TX_MISMATCH",
      message:
        `the signed transaction is not the one built: its message differs from byte ${at} on ` +
        `(${message.length} bytes signed, ${expectedMessage.length} built). Sign the transaction exactly as returned, without adding or changing instructions, fee payer or blockhash.`,
    };
  }
  if (tx.signatures.length !== signers.length || signers.length === 0)
    return invalid(`signedTransaction carries ${tx.signatures.length} signatures for ${signers.length} required signers`);

  const role = (i: number) => (i === 0 ? " (the fee payer, the creator's wallet)" : "");
  const missing: string[] = [];
  const bad: string[] = [];
  signers.forEach((signer, i) => {
    const sig = tx.signatures[i]!;
    if (sig.every((b) => b === 0)) missing.push(signer.toBase58() + role(i));
    else if (!verifyEd25519(signer.toBytes(), message, sig)) bad.push(signer.toBase58() + role(i));
  });
  if (missing.length)
    return { ok: false, code: "MISSING_SIGNATURE", message: `the transaction is not signed by ${missing.join(", ")}; sign it with that wallet and submit again` };
  if (bad.length)
    return { ok: false, code: "BAD_SIGNATURE", message: `the signature of ${bad.join(", ")} does not verify against the transaction's message` };
  return { ok: true, signature: bs58.encode(tx.signatures[0]!), raw };
}
