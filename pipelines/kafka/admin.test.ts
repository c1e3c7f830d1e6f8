import { describe, expect, test } from "bun:test";
import type { Kafka } from "kafkajs";
import { ensureTopics } from "./admin";

/** Test double of the kafkajs admin client: topic creation is refused `refusals` times, then works. */
function adminDouble(refusals: number) {
  const created: string[] = [];
  let attempts = 0;
  const kafka = {
    admin: () => ({
      connect: async () => {},
      disconnect: async () => {},
      listTopics: async () => ["existing", "existing.dlq"],
      createTopics: async ({ topics }: { topics: { topic: string }[] }) => {
        if (++attempts <= refusals) throw new Error("This server does not host this topic-partition");
        created.push(...topics.map((t) => t.topic));
        return true;
      },
    }),
  } as unknown as Kafka;
  return { kafka, created, attempts: () => attempts };
}

const FAST = { retries: 3, minDelayMs: 1, maxDelayMs: 1 };

describe("ensureTopics", () => {
  test("creates the missing topics and their dead-letter twins, retrying a broker that refuses at first", async () => {
    const admin = adminDouble(2);
    expect(await ensureTopics(admin.kafka, { partitions: 3, replication: 1, topics: ["existing", "mine"] }, FAST)).toEqual(["mine", "mine.dlq"]);
    expect(admin.created).toEqual(["mine", "mine.dlq"]);
    expect(admin.attempts()).toBe(3);
  });

  test("gives up with the broker's last answer once the attempts are spent", async () => {
    const admin = adminDouble(10);
    await expect(ensureTopics(admin.kafka, { partitions: 1, replication: 1, topics: ["mine"] }, FAST)).rejects.toThrow("does not host");
    expect(admin.attempts()).toBe(4);
  });
});
