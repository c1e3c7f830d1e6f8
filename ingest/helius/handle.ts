/**
 * Pure-ish core of the Helius webhook: a parsed body → envelopes for the bus.
 * An element that cannot be understood is kept raw and counted; it never fails
 * the batch.
 */
import { createHash } from "node:crypto";
import { normalizeWebhookTransaction } from "../normalize";
import { decodeTransaction } from "../decoders";
import { envelopeFromDecoded, envelopeUndecodable, type TxEnvelope } from "../contract/envelope";
import { learnCoins, type FactScope } from "../contract/fact-scope";

export const MAX_TRANSACTIONS_PER_WEBHOOK = 1000;

export type BodyCheck = { ok: true; elements: unknown[] } | { ok: false; message: string };

export function checkWebhookBody(body: unknown): BodyCheck {
  if (!Array.isArray(body)) return { ok: false, message: "a Helius webhook body is a JSON array of transactions" };
  if (body.length > MAX_TRANSACTIONS_PER_WEBHOOK)
    return { ok: false, message: `at most ${MAX_TRANSACTIONS_PER_WEBHOOK} transactions per webhook call; got ${body.length}` };
  const notObject = body.findIndex((e) => e === null || typeof e !== "object" || Array.isArray(e));
  if (notObject !== -1) return { ok: false, message: `element ${notObject} is not a transaction object` };
  return { ok: true, elements: body };
}

function signatureOf(element: unknown): string | null {
  const e = element as { signature?: unknown; transaction?: { signatures?: unknown[] } };
  if (typeof e.signature === "string" && e.signature.length > 0 && e.signature.length <= 100) return e.signature;
  const s = e.transaction?.signatures?.[0];
  return typeof s === "string" && s.length <= 100 ? s : null;
}

/**
 * `scope`: decode only the balance facts the pipelines can use (contract/fact-scope.ts); the
 * coins the transactions prove are learned into it in order, so a coin created early in a body
 * keeps its balances later in the same body, and are added to `learned`.
 */
export type DecodeOptions = { scope?: FactScope | null; learned?: string[] };

export function toEnvelopes(elements: unknown[], source: TxEnvelope["source"], receivedAt = Date.now(), opts: DecodeOptions = {}): TxEnvelope[] {
  const scope = opts.scope ?? undefined;
  return elements.map((element) => {
    const normalized = normalizeWebhookTransaction(element);
    if (!normalized.ok) {
      const payload = JSON.stringify(element);
      const signature = signatureOf(element) ?? `invalid:${createHash("sha256").update(payload).digest("hex")}`;
      return envelopeUndecodable(source, receivedAt, payload, normalized.reason, signature);
    }
    const decoded = decodeTransaction(normalized.tx, scope);
    if (scope) for (const mint of learnCoins(scope, decoded.facts)) opts.learned?.push(mint);
    return envelopeFromDecoded(source, receivedAt, decoded, () => JSON.stringify(element));
  });
}

export type DecodedBody = { ok: true; envelopes: TxEnvelope[] } | { ok: false; message: string };

/** A webhook body as text → envelopes, or what is wrong with it. */
export function decodeWebhookText(text: string, source: TxEnvelope["source"], receivedAt: number, opts: DecodeOptions = {}): DecodedBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, message: "the body is not valid JSON; Helius sends a JSON array of transactions" };
  }
  const checked = checkWebhookBody(body);
  if (!checked.ok) return checked;
  return { ok: true, envelopes: toEnvelopes(checked.elements, source, receivedAt, opts) };
}
