/**
 * The Sign-In With Solana message (CAIP-122 as the Solana Wallet Standard's `solana:signIn`
 * writes it): text built from fields, and text read back into fields.
 *
 *   ${domain} wants you to sign in with your Solana account:
 *   ${address}
 *
 *   ${statement}
 *
 *   URI: ${uri}
 *   Version: 1
 *   Chain ID: ${chainId}
 *   Nonce: ${nonce}
 *   Issued At: ${issuedAt}
 *   Expiration Time: ${expirationTime}
 *   Not Before: ${notBefore}
 *   Request ID: ${requestId}
 *   Resources:
 *   - ${resource}
 *
 * The statement and every field line appear only when set, fields always in this order
 * (phantom-labs/sign-in-with-solana's ABNF; @solana/wallet-standard-util's
 * createSignInMessageText writes the same text, which a wallet's `signIn` signs).
 * The reader is strict: it accepts exactly what that grammar makes (LF line ends, each
 * field once, in order) and says which line it could not read. A signature covers the
 * exact bytes, so nothing is normalised before verification.
 */

import { createSignInMessageText } from "@solana/wallet-standard-util";

export type SignInFields = {
  domain: string;
  address: string;
  statement?: string;
  uri?: string;
  version?: string;
  chainId?: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
};

const HEADER = " wants you to sign in with your Solana account:";

/** Field lines in the order the grammar puts them, with the key each sets. */
const FIELDS = [
  ["URI: ", "uri"],
  ["Version: ", "version"],
  ["Chain ID: ", "chainId"],
  ["Nonce: ", "nonce"],
  ["Issued At: ", "issuedAt"],
  ["Expiration Time: ", "expirationTime"],
  ["Not Before: ", "notBefore"],
  ["Request ID: ", "requestId"],
] as const;

/** The message text, built by the Wallet Standard's own builder (what a wallet's `signIn` signs). */
export function signInMessageText(f: SignInFields): string {
  return createSignInMessageText(f);
}

export type Parsed = { ok: true; fields: SignInFields } | { ok: false; problem: string };

const fail = (problem: string): Parsed => ({ ok: false, problem });
const isFieldLine = (line: string) => line === "Resources:" || FIELDS.some(([label]) => line.startsWith(label));

export function parseSignInMessage(text: string): Parsed {
  if (text.includes("\r")) return fail("lines must end with LF only");
  const lines = text.replace(/\n+$/, "").split("\n");
  const head = lines[0] ?? "";
  if (!head.endsWith(HEADER) || head.length === HEADER.length) return fail(`the first line must be "<domain>${HEADER}"`);
  const address = lines[1];
  if (!address) return fail("the second line must be the account address");
  const fields: SignInFields = { domain: head.slice(0, -HEADER.length), address };
  let i = 2;
  if (i === lines.length) return { ok: true, fields };
  if (lines[i] !== "") return fail("a blank line must follow the address");
  i++;
  if (i < lines.length && !isFieldLine(lines[i]!)) {
    if (lines[i] === "") return fail("one blank line only after the address");
    fields.statement = lines[i]!;
    i++;
    if (i === lines.length) return { ok: true, fields };
    if (lines[i] !== "") return fail("a blank line must follow the statement");
    i++;
  }
  let next = 0; // the first field that may still come: each once, in the grammar's order
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "Resources:") {
      const resources: string[] = [];
      for (i++; i < lines.length; i++) {
        if (!lines[i]!.startsWith("- ") || lines[i]!.length === 2) return fail(`line ${i + 1}: only "- <resource>" lines may follow "Resources:"`);
        resources.push(lines[i]!.slice(2));
      }
      fields.resources = resources;
      break;
    }
    const at = FIELDS.findIndex(([label]) => line.startsWith(label));
    if (at < 0) return fail(`line ${i + 1} is not a field of a sign-in message`);
    if (at < next) return fail(`line ${i + 1}: "${FIELDS[at]![0].trim()}" is repeated or out of order`);
    const value = line.slice(FIELDS[at]![0].length);
    if (!value) return fail(`line ${i + 1}: "${FIELDS[at]![0].trim()}" is empty`);
    fields[FIELDS[at]![1]] = value;
    next = at + 1;
  }
  return { ok: true, fields };
}
