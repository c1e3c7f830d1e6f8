/**
 * Worker thread: parses and decodes webhook bodies off the HTTP event loop.
 * Receives { id, text, source, receivedAt }, answers { id, result }.
 */
import { decodeWebhookText } from "./handle";

declare const self: Worker;

self.onmessage = (event: MessageEvent) => {
  const { id, text, source, receivedAt } = event.data;
  let result;
  try {
    result = decodeWebhookText(text, source, receivedAt);
  } catch (err) {
    result = { ok: false as const, message: `decoder failure: ${(err as Error).message}` };
  }
  self.postMessage({ id, result });
};
