/**
 * Test double of decode-worker.ts with injected faults: the body `"throw"` makes the
 * decoder throw, `"exit"` ends the worker (as a crash would), `"hang"` is never
 * answered; any other body is decoded as the real worker does.
 */
import { answerDecode, type DecodeRequest } from "../decode-pool";
import { decodeWebhookText } from "../handle";

declare const self: Worker;

self.onmessage = (event: MessageEvent<DecodeRequest>) => {
  const { text } = event.data;
  if (text === "hang") return;
  if (text === "exit") process.exit(1);
  self.postMessage(
    answerDecode(event.data, (body, source, receivedAt) => {
      if (body === "throw") throw new Error("injected decoder fault");
      return decodeWebhookText(body, source, receivedAt);
    }),
  );
};
