import { describe, expect, test } from "bun:test";
import { KafkaJSProtocolError, KafkaJSConnectionError, type Kafka, type ProducerRecord } from "kafkajs";
import { createRecoveringProducer, KafkaUnavailable, refusedForProducerState } from "./producer";

// A test double of the kafkajs client whose producers follow a script: each producer the
// recovering producer creates is numbered, and `answer(n, call)` says what its send does.
// A kafkajs producer whose sequences went out of step answers OUT_OF_ORDER_SEQUENCE_NUMBER to
// every send for ever; that is the producer `stuck` plays.
// kafkajs builds protocol errors from its error table entry (its typings only show the message form)
const outOfOrder = () => new KafkaJSProtocolError({ type: "OUT_OF_ORDER_SEQUENCE_NUMBER", code: 45, retriable: false, message: "The broker received an out of order sequence number" } as never);

function kafkaDouble(answer: (producer: number, call: number) => "ok" | "out-of-order" | "down" | "hang") {
  const producers: { n: number; sends: number; disconnected: boolean }[] = [];
  const kafka = {
    producer: () => {
      const p = { n: producers.length, sends: 0, disconnected: false };
      producers.push(p);
      return {
        connect: async () => {},
        disconnect: async () => void (p.disconnected = true),
        send: async (_: ProducerRecord) => {
          const what = answer(p.n, p.sends++);
          if (what === "out-of-order") throw outOfOrder();
          if (what === "down") throw new KafkaJSConnectionError("Connection error: connect ECONNREFUSED");
          if (what === "hang") return new Promise(() => {});
          return [];
        },
      };
    },
  } as unknown as Kafka;
  return { kafka, producers };
}

const record: ProducerRecord = { topic: "t", acks: -1, messages: [{ value: "x" }] };

describe("recovering producer", () => {
  test("a producer stuck on out-of-order sequences is replaced; the refused batch goes again at once on a fresh producer id", async () => {
    const stuck = kafkaDouble((n) => (n === 0 ? "out-of-order" : "ok"));
    const producer = createRecoveringProducer(stuck.kafka);
    await producer.send(record); // refused by producer 0, sent by producer 1 inside the same call
    await producer.send(record);
    expect(stuck.producers.map((p) => ({ sends: p.sends, disconnected: p.disconnected }))).toEqual([
      { sends: 1, disconnected: true },
      { sends: 2, disconnected: false },
    ]);
    await producer.close();
  });

  test("a send that failed while Kafka was down is not sent again by us (its outcome is unknown); the next send uses a fresh producer", async () => {
    const outage = kafkaDouble((n) => (n === 0 ? "down" : "ok"));
    const producer = createRecoveringProducer(outage.kafka);
    await expect(producer.send(record)).rejects.toBeInstanceOf(KafkaUnavailable);
    expect(outage.producers).toHaveLength(1);
    await producer.send(record);
    expect(outage.producers.map((p) => p.sends)).toEqual([1, 1]);
    expect(outage.producers[0]!.disconnected).toBe(true);
    await producer.close();
  });

  test("a send with no answer within the deadline fails with KafkaUnavailable and retires its producer once nothing is in flight on it", async () => {
    const slow = kafkaDouble((n) => (n === 0 ? "hang" : "ok"));
    const producer = createRecoveringProducer(slow.kafka, { timeoutMs: 50 });
    await expect(producer.send(record)).rejects.toThrow("did not acknowledge within 50 ms");
    await producer.send(record);
    expect(slow.producers).toHaveLength(2);
    expect(slow.producers[0]!.disconnected).toBe(false); // its send never settled: not cut under it
    expect(await producer.ready()).toBe(true);
    await producer.close();
    expect(slow.producers.every((p) => p.disconnected)).toBe(true);
  });

  test("a refusal is recognised inside kafkajs's wrappers", () => {
    expect(refusedForProducerState(outOfOrder())).toBe(true);
    expect(refusedForProducerState({ name: "KafkaJSNumberOfRetriesExceeded", cause: outOfOrder() })).toBe(true);
    expect(refusedForProducerState({ name: "KafkaJSAggregateError", errors: [new Error("x"), outOfOrder()] })).toBe(true);
    expect(refusedForProducerState(new KafkaJSConnectionError("down"))).toBe(false);
  });
});

describe("the bus and the dead-letter producer over a stuck kafkajs producer", () => {
  test("the bus publishes again once its producer is stuck on out-of-order sequences", async () => {
    const { createKafkaBus } = await import("./bus");
    let stuck = false;
    const double = kafkaDouble((n) => (stuck && n === 0 ? "out-of-order" : "ok"));
    const bus = await createKafkaBus(double.kafka, { topic: "t" });
    const batch = [{ signature: "s", facts: [] }] as never;
    await bus.publish(batch);
    stuck = true; // the broker came back and producer 0's sequences are out of step
    await bus.publish(batch);
    await bus.publish(batch);
    await bus.close();
  });

  test("the dead-letter producer sends again once its producer is stuck on out-of-order sequences", async () => {
    const { deadLetterProducer } = await import("./consumer");
    let stuck = false;
    const double = kafkaDouble((n) => (stuck && n === 0 ? "out-of-order" : "ok"));
    const producer = await deadLetterProducer(double.kafka);
    await producer.send(record);
    stuck = true;
    await producer.send(record);
    await producer.send(record);
    await producer.disconnect();
  });
});
