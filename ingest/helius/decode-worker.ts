/**
 * Worker thread: parses and decodes webhook bodies off the HTTP event loop.
 * Receives a DecodeRequest, answers a DecodeAnswer (a decoder that throws is
 * answered as a failure, which the pool turns into a 503, never a 400).
 */
import { answerDecode, type DecodeRequest } from "./decode-pool";

declare const self: Worker;

self.onmessage = (event: MessageEvent<DecodeRequest>) => {
  self.postMessage(answerDecode(event.data));
};
