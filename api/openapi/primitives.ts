/**
 * Field types the response schemas of every feature share (valibot), each with what it
 * means and an example, so the reference page and the generated client say the same.
 */
import * as v from "valibot";

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export const Address = v.pipe(v.string(), v.regex(BASE58), v.metadata({ description: "a base58 Solana address", examples: ["GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx"] }));
export const Mint = v.pipe(v.string(), v.regex(BASE58), v.metadata({ description: "a coin's mint: the agent's id everywhere", examples: ["GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx"] }));
export const Signature = v.pipe(
  v.string(),
  v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,88}$/),
  v.metadata({ description: "a transaction signature (base58)", examples: ["5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBgq2nTAQ3wSZQB"] }),
);
export const IsoTime = v.pipe(v.string(), v.isoTimestamp(), v.metadata({ examples: ["2026-01-01T00:00:00.000Z"] }));
/** An exact decimal amount in whole units (SOL, coins): "12.5". */
export const Decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/), v.metadata({ description: "an exact decimal amount, as a string", examples: ["12.345678901"] }));
/** An integer amount of the smallest unit (lamports, atoms, micro-USD), as a decimal string. */
export const Atoms = v.pipe(v.string(), v.regex(/^-?\d+$/), v.metadata({ description: "an integer amount of the smallest unit (lamports, atoms, micro-USD), as a decimal string", examples: ["1500000000"] }));
export const Integer = v.pipe(v.number(), v.integer());
/** A record's id (a Postgres bigserial), as a decimal string: what paths and cursors take back. */
export const RowId = v.pipe(v.string(), v.regex(/^[1-9]\d{0,18}$/), v.metadata({ description: "a row id, decimal", examples: ["42"] }));
/** A SHA-256 digest, lowercase hex. */
export const Sha256Hex = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.metadata({ description: "a SHA-256 digest, lowercase hex", examples: ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"] }));
export const Url = v.pipe(v.string(), v.metadata({ description: "a link", examples: ["https://agents.example/agents/GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx"] }));
export const NextCursor = v.pipe(v.nullable(v.string()), v.metadata({ description: "pass as `cursor` for the next page; null on the last page" }));
/** A free-form object of facts (a feed item's `data`, a stdout line's `meta`). */
export const Facts = v.record(v.string(), v.unknown());

/** A cursor page of `item`: `{ items, nextCursor }`. */
export const page = <T extends v.GenericSchema>(item: T) => v.object({ items: v.array(item), nextCursor: NextCursor });

/** The SOL price both APIs answer with. */
export const SolPrice = v.object({
  usd: v.pipe(v.number(), v.metadata({ examples: [150.25] })),
  conf: v.pipe(v.nullable(v.number()), v.metadata({ description: "the oracle's confidence in USD; null for other sources" })),
  publishTime: IsoTime,
  source: v.picklist(["oracle", "oracle-relay", "aggregator", "exchange"]),
});
