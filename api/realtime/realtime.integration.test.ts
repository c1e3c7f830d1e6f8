/**
 * The realtime channel over real sockets: two apps listening on port 0 on one embedded Postgres
 * (as two api processes), Bun's own WebSocket client. Subscribe, a line written with
 * appendStdout (and one written through the other app's operator route) delivered, unsubscribe,
 * a client's reconnect, the relay's reconnect with its read-back, bad frames, the bounds, the price.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { testWalletHeaderAuthenticator } from "../../compose/testing/sign-in";
import { Keypair } from "@solana/web3.js";
import { registryWith, testPlatform } from "../../compose/testing/platform";
import { openTestSocket, type TestSocket } from "../../infra/testing/ws-client";
import { until } from "../../infra/testing/wait";
import type { PriceSource } from "../../infra/sol-price";
import { appendStdout, type StdoutRow } from "../daemons/store";

const addr = () => Keypair.generate().publicKey.toBase58();
const CONFIG = addr();


/** Test double: a price source whose answer the test sets. */
let priceUsd = 150;
let pricePublishTime = "2026-01-01T00:00:00.000Z";
const settablePriceSourceTestDouble: PriceSource = { name: "exchange", read: async () => ({ usd: priceUsd, conf: 0.05, publishTime: pricePublishTime, source: "exchange" }) };

/** The relay's reconnect of app A waits until the test opens this gate (the lines written meanwhile must be read back). */
let gate: { open: () => void; promise: Promise<void> } | null = null;
const states: string[] = [];

type Platform = Awaited<ReturnType<typeof testPlatform>>;
let a: Platform;
let b: Platform;
let small: Platform;
const servers: { stop(): unknown }[] = [];
const sockets: TestSocket[] = [];
const urls = { a: "", b: "", small: "" };

async function listen(p: Platform): Promise<string> {
  p.app.listen({ port: 0, hostname: "127.0.0.1" });
  servers.push({ stop: () => p.app.stop(true) });
  return `ws://127.0.0.1:${p.app.server!.port}/v1/ws`;
}

beforeAll(async () => {
  const configs = registryWith([{ role: "launch", address: CONFIG }]);
  a = await testPlatform(configs, {
    authenticate: testWalletHeaderAuthenticator,
    priceSources: [settablePriceSourceTestDouble],
    realtime: {
      priceEveryMs: 50,
      relay: {
        onState: (s) => states.push(s),
        reconnectDelay: async () => {
          if (gate) await gate.promise;
        },
      },
    },
  });
  b = await testPlatform(configs, { authenticate: testWalletHeaderAuthenticator });
  small = await testPlatform(configs, { env: { REALTIME_MAX_TOPICS_PER_SOCKET: "3", REALTIME_MAX_SOCKETS_PER_CLIENT: "2" } });
  urls.a = await listen(a);
  urls.b = await listen(b);
  urls.small = await listen(small);
});

afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  gate?.open();
  await Promise.all(sockets.splice(0).map((s) => s.close()));
  for (const s of servers) await s.stop();
  for (const p of [a, b, small]) await p?.realtime?.stop();
});

const sql = () => a.engines.sql;

async function open(url: string) {
  const s = await openTestSocket(url);
  sockets.push(s);
  return s;
}

async function agent(o: { hidden?: boolean; creator?: string } = {}) {
  const mint = addr();
  await sql()`
    INSERT INTO agents (mint, coin_name, symbol, image_url, creator, vault, config, dbc_pool, state, hidden, name, model, template, category, presence, traits, drive, motto)
    VALUES (${mint}, 'Coin', 'CN', 'https://img.example/c.png', ${o.creator ?? addr()}, ${addr()}, ${CONFIG}, ${addr()}, 'awake', ${o.hidden ?? false},
            'Ada', null, 'patron', 'rewards', 'influencer', ${sql().json(["bold"])}, 'reward holders', 'hold on')`;
  return mint;
}

/** The line as the spec's Stdout line, computed here from the stored row. */
const expectedLine = (r: StdoutRow) => ({ id: r.id.toString(), kind: r.kind, body: r.body, meta: r.meta, createdAt: r.created_at.toISOString() });

const isEvent = (topic: string, id?: string) => (f: any) => f.topic === topic && f.event === "daemon.stdout" && (id === undefined || f.data.id === id);

async function subscribe(s: TestSocket, topics: string[]) {
  s.send({ op: "subscribe", topics });
  return s.take(`subscribed ${topics}`, (f) => f.op === "subscribed" || f.op === "error");
}

describe("/v1/ws: subscribe, receive, unsubscribe, reconnect", () => {
  test("a line written with appendStdout arrives as the stdout list's item; unsubscribed, the next does not; a new socket subscribes again", async () => {
    const mint = await agent();
    const other = await agent();
    const s = await open(urls.a);
    expect(await subscribe(s, [`daemon:${mint}`])).toEqual({ op: "subscribed", topics: [`daemon:${mint}`] });

    const row = await appendStdout(sql(), mint, { kind: "thinking", body: "the pool is quiet", meta: { step: 1, nested: { ok: true } } });
    const event = await s.take("the first line", isEvent(`daemon:${mint}`));
    expect(event).toEqual({ topic: `daemon:${mint}`, event: "daemon.stdout", data: expectedLine(row) });
    // the same shape as GET /v1/daemons/:mint/stdout items
    const list = await a.call(`/v1/daemons/${mint}/stdout?limit=1`);
    expect(list.body.items[0]).toEqual(event.data);

    // lines arrive in the order they were written
    const more = [];
    for (let i = 0; i < 5; i++) more.push(await appendStdout(sql(), mint, { kind: i % 2 ? "action" : "decision", body: `step ${i}` }));
    for (const r of more) expect((await s.take(`line ${r.id}`, isEvent(`daemon:${mint}`))).data).toEqual(expectedLine(r));

    s.send({ op: "unsubscribe", topics: [`daemon:${mint}`], id: "u1" });
    expect(await s.take("unsubscribed", (f) => f.op === "unsubscribed")).toEqual({ op: "unsubscribed", topics: [`daemon:${mint}`], id: "u1" });
    await appendStdout(sql(), mint, { kind: "thinking", body: "nobody listens" });
    // a line of another agent written after it: once that one is here, the first would have been too
    expect((await subscribe(s, [`daemon:${other}`])).op).toBe("subscribed");
    const later = await appendStdout(sql(), other, { kind: "thinking", body: "someone listens" });
    expect((await s.take("the other agent's line", isEvent(`daemon:${other}`))).data).toEqual(expectedLine(later));
    expect(s.frames).toEqual([]);

    // the client reconnects: a new socket, subscribed again, gets what is written after
    await s.close();
    const again = await open(urls.a);
    expect((await subscribe(again, [`daemon:${mint}`])).op).toBe("subscribed");
    const after = await appendStdout(sql(), mint, { kind: "error", body: "provider timed out", meta: { attempt: 2 } });
    expect((await again.take("the line after reconnecting", isEvent(`daemon:${mint}`))).data).toEqual(expectedLine(after));
  });

  test("two sockets on one agent both get each line; subscribing twice is one subscription", async () => {
    const mint = await agent();
    const [s1, s2] = [await open(urls.a), await open(urls.a)];
    await subscribe(s1, [`daemon:${mint}`]);
    await subscribe(s2, [`daemon:${mint}`, `daemon:${mint}`]);
    expect(await subscribe(s2, [`daemon:${mint}`])).toEqual({ op: "subscribed", topics: [`daemon:${mint}`] });
    const row = await appendStdout(sql(), mint, { kind: "decision", body: "buy back" });
    for (const s of [s1, s2]) expect((await s.take("the line", isEvent(`daemon:${mint}`))).data).toEqual(expectedLine(row));
    const next = await appendStdout(sql(), mint, { kind: "decision", body: "hold" });
    await s2.take("the next line", isEvent(`daemon:${mint}`, next.id.toString()));
    expect(s2.frames).toEqual([]); // once each, however often subscribed
  });
});

describe("relay across processes", () => {
  test("a line written through one app (its operator route) and one written with appendStdout reach a client of the other", async () => {
    const creator = addr();
    const mint = await agent({ creator });
    const s = await open(urls.b);
    await subscribe(s, [`daemon:${mint}`]);
    const r = await a.call(`/v1/daemons/${mint}/autonomy`, { method: "PUT", headers: { "x-test-wallet": creator, "content-type": "application/json" }, body: JSON.stringify({ autonomy: "autonomous" }) });
    expect(r.status).toBe(200);
    const [stored] = await sql()<StdoutRow[]>`SELECT id, mint, kind, body, meta, created_at FROM daemon_stdout WHERE mint = ${mint} ORDER BY id DESC LIMIT 1`;
    const event = await s.take("the operator's line", isEvent(`daemon:${mint}`));
    expect(event.data).toEqual(expectedLine(stored!));
    expect(event.data.meta).toMatchObject({ source: "operator" });
    const row = await appendStdout(a.engines.sql, mint, { kind: "action", body: "posted" });
    expect((await s.take("the runtime's line", isEvent(`daemon:${mint}`))).data).toEqual(expectedLine(row));
  });

  test("after its Postgres connection drops, a relay reads back the lines written meanwhile: each once, in order", async () => {
    const mint = await agent();
    const sa = await open(urls.a);
    const sb = await open(urls.b);
    await subscribe(sa, [`daemon:${mint}`]);
    await subscribe(sb, [`daemon:${mint}`]);
    const before = await appendStdout(sql(), mint, { kind: "thinking", body: "before the drop" });
    await sa.take("the line before", isEvent(`daemon:${mint}`, before.id.toString()));
    await sb.take("the line before", isEvent(`daemon:${mint}`, before.id.toString()));

    let release!: () => void;
    gate = { open: () => release(), promise: new Promise<void>((r) => (release = r)) };
    const caughtBefore = a.realtime!.relay.caughtUp();
    const downs = states.filter((x) => x === "down").length;
    // every relay's listening connection is cut (as a Postgres restart or a network fault would)
    await sql()`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'acp-realtime-listen'`;
    await until("the relay to see its connection drop", async () => (states.filter((x) => x === "down").length > downs ? true : undefined), 10_000);
    expect(a.realtime!.relay.state()).toBe("down");
    const meanwhile = [];
    for (let i = 0; i < 3; i++) meanwhile.push(await appendStdout(sql(), mint, { kind: "action", body: `while down ${i}` }));
    gate.open();
    gate = null;
    for (const r of meanwhile) expect((await sa.take(`line ${r.id} read back`, isEvent(`daemon:${mint}`))).data).toEqual(expectedLine(r));
    expect(a.realtime!.relay.caughtUp() - caughtBefore).toBe(3);
    expect(a.realtime!.relay.state()).toBe("up");
    // the other app reconnected on its own backoff; its client got every line too
    for (const r of meanwhile) expect((await sb.take(`line ${r.id} on b`, isEvent(`daemon:${mint}`))).data).toEqual(expectedLine(r));
    // live again, and nothing twice
    const after = await appendStdout(sql(), mint, { kind: "thinking", body: "after" });
    await sa.take("the line after", isEvent(`daemon:${mint}`, after.id.toString()));
    expect(sa.frames).toEqual([]);
  });
});

describe("bad frames and refusals", () => {
  test("each bad frame is answered with an error frame and the socket stays open", async () => {
    const hidden = await agent({ hidden: true });
    const known = await agent();
    const unknown = addr();
    const s = await open(urls.a);
    const error = () => s.take("an error frame", (f) => f.op === "error");

    s.send("not json {");
    expect(await error()).toMatchObject({ op: "error", code: "BAD_FRAME" });
    s.send("[1,2]");
    expect(await error()).toMatchObject({ code: "BAD_FRAME" });
    s.send("42");
    expect(await error()).toMatchObject({ code: "BAD_FRAME" });
    s.send(new Uint8Array([1, 2, 3]));
    expect(await error()).toMatchObject({ code: "BAD_FRAME" });
    s.send({ op: "publish", topics: ["price"], id: 7 });
    expect(await error()).toMatchObject({ code: "UNKNOWN_OP", id: 7 });
    s.send({ topics: ["price"] });
    expect(await error()).toMatchObject({ code: "UNKNOWN_OP" });
    s.send({ op: "subscribe" });
    expect(await error()).toMatchObject({ code: "BAD_TOPIC" });
    s.send({ op: "subscribe", topics: [] });
    expect(await error()).toMatchObject({ code: "BAD_TOPIC" });
    s.send({ op: "subscribe", topics: ["price", "daemon:0OIl", 5, "trades", `daemon:${known}`] });
    const bad = await error();
    expect(bad).toMatchObject({ code: "BAD_TOPIC", details: [{ index: 1, topic: "daemon:0OIl" }, { index: 2, topic: null }, { index: 3, topic: "trades" }] });
    // nothing of a refused frame is subscribed
    s.send({ op: "subscribe", topics: [`daemon:${unknown}`, `daemon:${hidden}`, `daemon:${known}`], id: "s1" });
    expect(await error()).toEqual({ op: "error", code: "NOT_FOUND", message: "no such agent (unknown or hidden)", details: { topics: [`daemon:${unknown}`, `daemon:${hidden}`] }, id: "s1" });
    expect(await s.take("the rest subscribed", (f) => f.op === "subscribed")).toEqual({ op: "subscribed", topics: [`daemon:${known}`], id: "s1" });
    // a hidden agent's lines never go out
    await appendStdout(sql(), hidden, { kind: "thinking", body: "hidden" });
    const visible = await appendStdout(sql(), known, { kind: "thinking", body: "visible" });
    expect((await s.take("the visible line", isEvent(`daemon:${known}`))).data.id).toBe(visible.id.toString());

    // the app-level heartbeat; the socket still answers after all of it
    s.send({ op: "ping", id: "hb" });
    expect(await s.take("pong", (f) => f.op === "pong")).toEqual({ op: "pong", id: "hb" });
    expect(s.frames).toEqual([]);
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
  });

  test("abuse closes: a frame over 4 kB (1009), a flood of frames (1008 after RATE_LIMITED)", async () => {
    const big = await open(urls.a);
    big.send({ op: "subscribe", topics: ["price"], pad: "x".repeat(5000) });
    expect((await big.closed).code).toBe(1009);

    const flood = await open(urls.a);
    for (let i = 0; i < 60; i++) flood.send({ op: "ping" });
    expect(await flood.take("rate limited", (f) => f.code === "RATE_LIMITED")).toMatchObject({ op: "error", code: "RATE_LIMITED" });
    expect((await flood.closed).code).toBe(1008);
  });

  test("topics per socket and sockets per client address are bounded", async () => {
    const mints = [await agent(), await agent(), await agent(), await agent()];
    const s = await open(urls.small);
    expect(await subscribe(s, mints.slice(0, 2).map((m) => `daemon:${m}`))).toMatchObject({ op: "subscribed" });
    expect(await subscribe(s, [`daemon:${mints[2]}`, `daemon:${mints[3]}`])).toEqual({
      op: "error",
      code: "TOO_MANY_TOPICS",
      message: "at most 3 topics per socket; unsubscribe some first",
      details: { max: 3, subscribed: 2 },
    });
    expect(await subscribe(s, ["price", "daemon:" + mints[0]])).toEqual({ op: "subscribed", topics: ["price", `daemon:${mints[0]}`] });
    expect(await subscribe(s, mints.map((m) => `daemon:${m}`))).toMatchObject({ code: "TOO_MANY_TOPICS", details: { max: 3 } });
    s.send({ op: "unsubscribe", topics: ["price"] });
    await s.take("unsubscribed", (f) => f.op === "unsubscribed");
    expect(await subscribe(s, [`daemon:${mints[3]}`])).toMatchObject({ op: "subscribed" });

    const second = await open(urls.small);
    const third = await open(urls.small);
    expect(await third.take("too many sockets", (f) => f.op === "error")).toMatchObject({ code: "TOO_MANY_SOCKETS", details: { max: 2 } });
    expect((await third.closed).code).toBe(1008);
    await second.close();
    await until("the server to see the socket close", async () => (small.realtime!.hub.counts().sockets === 1 ? true : undefined), 10_000);
    const fourth = await open(urls.small);
    fourth.send({ op: "ping" });
    expect(await fourth.take("pong", (f) => f.op === "pong")).toEqual({ op: "pong" });
  });
});

describe("price", () => {
  test("the price on subscribing, then each change, in the SOL price shape", async () => {
    priceUsd = 150;
    const s = await open(urls.a);
    expect(await subscribe(s, ["price"])).toEqual({ op: "subscribed", topics: ["price"] });
    expect(await s.take("the price now", (f) => f.event === "price.sol")).toEqual({
      topic: "price",
      event: "price.sol",
      data: { usd: 150, conf: 0.05, publishTime: "2026-01-01T00:00:00.000Z", source: "exchange" },
    });
    priceUsd = 151.25;
    pricePublishTime = "2026-01-01T00:00:05.000Z";
    // the service keeps an answer 3 s; the change goes out at the next poll after that
    expect(await s.take("the new price", (f) => f.event === "price.sol")).toEqual({
      topic: "price",
      event: "price.sol",
      data: { usd: 151.25, conf: 0.05, publishTime: "2026-01-01T00:00:05.000Z", source: "exchange" },
    });
  });
});
