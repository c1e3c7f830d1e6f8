/**
 * Reading a Launch API request body safely: the declared size is checked before
 * anything is read, the stream is cut at the limit (a body without Content-Length, or
 * lying about it, is never buffered whole), and nesting is measured before JSON.parse
 * so that neither the parser nor anything recursive after it (canonical JSON, valibot)
 * can run out of stack. Every refusal is 400 VALIDATION_ERROR on `body`.
 */
import { validationError } from "../errors";

/** Largest request body read (a create body is at most a few kB). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Deepest nesting of arrays and objects accepted (a create body nests 3 levels). */
export const MAX_BODY_DEPTH = 16;

const tooLarge = () => validationError([{ field: "body", message: `must be at most ${MAX_BODY_BYTES} bytes` }]);

/** The body's bytes, at most `max` of them; throws as soon as the declared or the read size is over. */
export async function readLimited(request: Request, max = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= max)) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** How deep arrays and objects nest in JSON text (brackets inside strings do not count); linear, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** Parses the body as JSON within the size and depth limits. */
export async function readJson(request: Request): Promise<unknown> {
  const text = new TextDecoder().decode(await readLimited(request));
  if (jsonDepth(text) > MAX_BODY_DEPTH) throw validationError([{ field: "body", message: `must not nest arrays and objects deeper than ${MAX_BODY_DEPTH} levels` }]);
  try {
    return JSON.parse(text);
  } catch {
    throw validationError([{ field: "body", message: "is not valid JSON" }]);
  }
}
