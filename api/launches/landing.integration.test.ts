import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { launchTestPlatform, signAsCreator } from "../../compose/testing/launch";
import { trackLaunchesOnce } from "../../agents/launch-tracker";

// A launch is expired (and may be rebuilt, with a new mint and the same vault) only once its
// transaction provably cannot land: the chain is past its lastValidBlockHeight AND the chain
// does not know its signature. Sends whose answer is lost (HTTP 502 from the RPC, while the
// transaction went through) are the case that used to make two pools with one vault.
let p: Awaited<ReturnType<typeof launchTestPlatform>>;
beforeAll(async () => {
  p = await launchTestPlatform();
}, 120_000); // engines start slowly on a loaded machine
afterAll(() => p?.stop());

const submit = (id: string, signedTransaction: string) => p.call("POST", `/v1/launches/${id}/submit`, { body: { signedTransaction } });
const track = () => trackLaunchesOnce({ sql: p.engines.sql, chain: p.launches.chain!, service: p.launches.service });
const launchRow = async (id: string) => (await p.engines.sql`SELECT status, mint, signature, error_code FROM launches WHERE id = ${id}`)[0]!;
/** Runs `fn` with the chain past this launch's lastValidBlockHeight, then puts the height back. */
async function pastItsHeight(launch: { lastValidBlockHeight: number }, fn: () => Promise<void>) {
  const height = p.rpc.blockHeight();
  p.rpc.setBlockHeight(launch.lastValidBlockHeight + 1);
  try {
    await fn();
  } finally {
    p.rpc.setBlockHeight(height);
  }
}
/** the mint account a landed launch transaction created */
const MINT_ACCOUNT = { lamports: 1_461_600, data: new Uint8Array(82), owner: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" };
/** every accepted send of a transaction that creates this vault's pool, by signature */
const sendsFor = (vaultSignatures: Set<string>) => p.rpc.sent.filter((s) => vaultSignatures.has(s.signature));

describe("a send whose answer is lost (502) but whose transaction landed", () => {
  test("the tracker past lastValidBlockHeight confirms it (does not expire it); rebuild answers ALREADY_LAUNCHED; one pool", async () => {
    const { creator, launch } = await p.built();
    const signed = signAsCreator(launch.transaction, creator);
    p.rpc.failNextSend(502, { landed: true });
    const lost = await submit(launch.id, signed);
    expect([lost.status, lost.body.error.code]).toEqual([502, "UPSTREAM_ERROR"]);
    // the signed bytes and signature were kept before sending
    const kept = await launchRow(launch.id);
    expect(kept.signature).toBe(p.rpc.sent.at(-1)!.signature);

    await pastItsHeight(launch, async () => {
      await track();
      expect(await launchRow(launch.id)).toMatchObject({ status: "confirmed", mint: launch.mint, error_code: null });
      const rebuild = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
      expect([rebuild.status, rebuild.body.error.code]).toEqual([409, "ALREADY_LAUNCHED"]);
    });
    expect((await launchRow(launch.id)).mint).toBe(launch.mint); // no second build
    expect(sendsFor(new Set([kept.signature])).length).toBe(1);
    const agents = await p.engines.sql`SELECT mint FROM agents WHERE vault = ${launch.vault}`;
    expect(agents.map((a) => a.mint)).toEqual([launch.mint]);
  });

  test("the creator's retry of submit past lastValidBlockHeight answers 200 confirmed, not EXPIRED", async () => {
    const { creator, launch } = await p.built();
    const signed = signAsCreator(launch.transaction, creator);
    p.rpc.failNextSend(502, { landed: true });
    expect((await submit(launch.id, signed)).status).toBe(502);
    await pastItsHeight(launch, async () => {
      const again = await submit(launch.id, signed);
      expect([again.status, again.body.status, again.body.mint]).toEqual([200, "confirmed", launch.mint]);
    });
  });

  test("a resend refused in preflight (422 SEND_FAILED) after a lost answer: rebuild is refused STILL_VALID until the old transaction cannot land, then ALREADY_LAUNCHED if it did", async () => {
    const { creator, launch } = await p.built();
    const signed = signAsCreator(launch.transaction, creator);
    p.rpc.setConfirmMode("never"); // in flight: unknown to the cluster for now
    try {
      p.rpc.failNextSend(502, { landed: true });
      expect((await submit(launch.id, signed)).status).toBe(502);
    } finally {
      p.rpc.setConfirmMode("immediate");
    }
    const signature = (await launchRow(launch.id)).signature as string;
    p.rpc.rejectNextSend(["Program log: insufficient lamports"]);
    const refused = await submit(launch.id, signed);
    expect([refused.status, refused.body.error.code]).toEqual([422, "SEND_FAILED"]);

    const early = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
    expect([early.status, early.body.error.code]).toEqual([409, "STILL_VALID"]);
    expect(early.body.error.message).toContain(String(launch.lastValidBlockHeight));
    expect(Number(early.headers.get("retry-after"))).toBeGreaterThan(0);

    // the first send lands after all, and the chain moves past its height
    p.rpc.setSignatureStatus(signature, "confirmed");
    await pastItsHeight(launch, async () => {
      const late = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
      expect([late.status, late.body.error.code]).toEqual([409, "ALREADY_LAUNCHED"]);
      expect(await launchRow(launch.id)).toMatchObject({ status: "confirmed", mint: launch.mint });
      expect((await p.engines.sql`SELECT 1 FROM agents WHERE mint = ${launch.mint}`).length).toBe(1);
    });
  });

  test("a resend refused in preflight after a lost answer: when the first send lands, the tracker confirms the launch", async () => {
    const { creator, launch } = await p.built();
    const signed = signAsCreator(launch.transaction, creator);
    p.rpc.setConfirmMode("never");
    try {
      p.rpc.failNextSend(502, { landed: true });
      expect((await submit(launch.id, signed)).status).toBe(502);
    } finally {
      p.rpc.setConfirmMode("immediate");
    }
    p.rpc.rejectNextSend(["Program log: insufficient lamports"]);
    expect((await submit(launch.id, signed)).status).toBe(422);
    expect((await launchRow(launch.id)).status).toBe("expired");
    p.rpc.setSignatureStatus((await launchRow(launch.id)).signature as string, "finalized");
    await track();
    expect(await launchRow(launch.id)).toMatchObject({ status: "confirmed", error_code: null });
    expect((await p.engines.sql`SELECT 1 FROM agents WHERE mint = ${launch.mint}`).length).toBe(1);
  });

  test("a send refused in preflight whose transaction never landed: rebuild works once past lastValidBlockHeight", async () => {
    const { creator, launch } = await p.built();
    p.rpc.rejectNextSend(["Program log: insufficient lamports"]);
    expect((await submit(launch.id, signAsCreator(launch.transaction, creator))).status).toBe(422);
    expect((await p.call("POST", `/v1/launches/${launch.id}/rebuild`)).body.error.code).toBe("STILL_VALID");
    await pastItsHeight(launch, async () => {
      const rebuilt = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
      expect(rebuilt.status).toBe(200);
      expect(rebuilt.body).toMatchObject({ id: launch.id, vault: launch.vault, status: "awaiting_signature" });
      expect(rebuilt.body.mint).not.toBe(launch.mint);
    });
  });

  test("a send that never reached the cluster: the tracker expires it only past lastValidBlockHeight, when the chain does not know it", async () => {
    const { creator, launch } = await p.built();
    p.rpc.failNextSend(502); // not landed
    expect((await submit(launch.id, signAsCreator(launch.transaction, creator))).status).toBe(502);
    await track();
    expect((await launchRow(launch.id)).status).toBe("awaiting_signature");
    await pastItsHeight(launch, async () => {
      await track();
      expect(await launchRow(launch.id)).toMatchObject({ status: "expired", error_code: "EXPIRED" });
      expect((await p.call("POST", `/v1/launches/${launch.id}/rebuild`)).status).toBe(200);
    });
  });
});

describe("a transaction the server never saw (the creator's wallet broadcast it)", () => {
  test("past lastValidBlockHeight with no signature recorded, a mint that exists on-chain means it landed: confirmed, no rebuild", async () => {
    const { launch } = await p.built({ agent: { name: "Self Sent" } });
    p.rpc.setAccount(launch.mint, MINT_ACCOUNT);
    await pastItsHeight(launch, async () => {
      const rebuild = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
      expect([rebuild.status, rebuild.body.error.code]).toEqual([409, "ALREADY_LAUNCHED"]);
      expect(await launchRow(launch.id)).toMatchObject({ status: "confirmed", mint: launch.mint });
      expect((await p.engines.sql`SELECT name FROM agents WHERE mint = ${launch.mint}`)[0]).toEqual({ name: "Self Sent" });
    });
  });

  test("the tracker does the same instead of expiring it", async () => {
    const { launch } = await p.built();
    p.rpc.setAccount(launch.mint, MINT_ACCOUNT);
    await pastItsHeight(launch, async () => {
      await track();
      expect(await launchRow(launch.id)).toMatchObject({ status: "confirmed", error_code: null });
    });
  });
});

describe("confirming a launch is one transaction: the status and the agent, or neither", () => {
  test("a failure between the two (injected in Postgres) leaves the launch open; the tracker then finishes it", async () => {
    const { creator, launch } = await p.built({ agent: { name: "Half Way", drive: "Survive a crash" } });
    const fn = `test_fail_agent_${launch.id.replaceAll("-", "")}`;
    const sql = p.engines.sql;
    await sql.unsafe(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW.launch_id = '${launch.id}' THEN RAISE EXCEPTION 'injected failure between the launch and its agent'; END IF;
         RETURN NEW; END $$`,
    );
    await sql.unsafe(`CREATE TRIGGER ${fn} BEFORE INSERT OR UPDATE ON agents FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    try {
      const res = await submit(launch.id, signAsCreator(launch.transaction, creator));
      expect(res.status).toBe(500);
      expect((await launchRow(launch.id)).status).toBe("submitted"); // not confirmed without its agent
    } finally {
      await sql.unsafe(`DROP TRIGGER IF EXISTS ${fn} ON agents`);
      await sql.unsafe(`DROP FUNCTION IF EXISTS ${fn}()`);
    }
    await track();
    expect((await launchRow(launch.id)).status).toBe("confirmed");
    const [agent] = await sql`SELECT name, drive, launch_id FROM agents WHERE mint = ${launch.mint}`;
    expect(agent).toEqual({ name: "Half Way", drive: "Survive a crash", launch_id: launch.id });
  });

  test("a launch confirmed without its agent (cut in half by an earlier version) gets it from the tracker", async () => {
    const { launch } = await p.built({ agent: { name: "Lost Soul" } });
    await p.engines.sql`UPDATE launches SET status = 'confirmed' WHERE id = ${launch.id}`;
    expect((await p.engines.sql`SELECT 1 FROM agents WHERE mint = ${launch.mint}`).length).toBe(0);
    const r = await track();
    expect(r!.repaired).toBeGreaterThanOrEqual(1);
    expect((await p.engines.sql`SELECT name, launch_id FROM agents WHERE mint = ${launch.mint}`)[0]).toEqual({ name: "Lost Soul", launch_id: launch.id });
  });
});
