/**
 * Test double of decode-worker.ts with injected faults: the body `"throw"` makes the
 * decoder throw, `"exit"` ends the worker (as a crash would), `"hang"` is never
 * answered; any other body is decoded as the real worker does.
 */
import { decodeWorker, type DecodeRequest, type ScopeMessage } from "../decode-pool";
import { decodeWebhookText } from "../handle";

declare const self: Worker;

const handle = decodeWorker((body, source, receivedAt, opts) => {
  if (body === "throw") throw new Error("injected decoder fault");
  return decodeWebhookText(body, source, receivedAt, opts);
});
self.onmessage = (event: MessageEvent<DecodeRequest | ScopeMessage>) => {
  const message = event.data;
  if ("text" in message && message.text === "hang") return;
  if ("text" in message && message.text === "exit") process.exit(1);
  const answer = handle(message);
  if (answer) self.postMessage(answer);
};
