/**
 * Worker thread: parses and decodes webhook bodies off the HTTP event loop.
 * Receives a DecodeRequest, answers a DecodeAnswer (a decoder that throws is
 * answered as a failure, which the pool turns into a 503, never a 400); keeps the
 * fact scope the pool sends it (a ScopeMessage, not answered).
 */
import { decodeWorker, type DecodeRequest, type ScopeMessage } from "./decode-pool";

declare const self: Worker;

const handle = decodeWorker();
self.onmessage = (event: MessageEvent<DecodeRequest | ScopeMessage>) => {
  const answer = handle(event.data);
  if (answer) self.postMessage(answer);
};
