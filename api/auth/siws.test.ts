import { describe, expect, test } from "bun:test";
import { parseSignInMessageText } from "@solana/wallet-standard-util";
import { parseSignInMessage, signInMessageText } from "./siws";

const ADDRESS = "9ZNTfG4NyQgxy2SWjSiQoUyBPEvXT2xo7fKc5hPYYJ7b";

describe("signInMessageText", () => {
  test("every field, in the grammar's order (the text the Wallet Standard's signIn signs)", () => {
    const text = signInMessageText({
      domain: "agents.example",
      address: ADDRESS,
      statement: "Sign in to agents.example.",
      uri: "https://agents.example",
      version: "1",
      chainId: "devnet",
      nonce: "32891756",
      issuedAt: "2026-11-26T23:00:00.000Z",
      expirationTime: "2026-11-26T23:05:00.000Z",
      notBefore: "2026-11-26T22:59:00.000Z",
      requestId: "req-1",
      resources: ["ipfs://bafy", "https://agents.example/terms"],
    });
    expect(text).toBe(
      "agents.example wants you to sign in with your Solana account:\n" +
        `${ADDRESS}\n` +
        "\n" +
        "Sign in to agents.example.\n" +
        "\n" +
        "URI: https://agents.example\n" +
        "Version: 1\n" +
        "Chain ID: devnet\n" +
        "Nonce: 32891756\n" +
        "Issued At: 2026-11-26T23:00:00.000Z\n" +
        "Expiration Time: 2026-11-26T23:05:00.000Z\n" +
        "Not Before: 2026-11-26T22:59:00.000Z\n" +
        "Request ID: req-1\n" +
        "Resources:\n" +
        "- ipfs://bafy\n" +
        "- https://agents.example/terms",
    );
  });

  test("without a statement or fields: the two header lines only", () => {
    expect(signInMessageText({ domain: "a.example", address: ADDRESS })).toBe(`a.example wants you to sign in with your Solana account:\n${ADDRESS}`);
    expect(signInMessageText({ domain: "a.example", address: ADDRESS, nonce: "abcdefgh" })).toBe(
      `a.example wants you to sign in with your Solana account:\n${ADDRESS}\n\nNonce: abcdefgh`,
    );
  });
});

describe("parseSignInMessage", () => {
  const full = {
    domain: "localhost:3000",
    address: ADDRESS,
    statement: "Clicking Sign or Approve only means you have proved this wallet is owned by you.",
    uri: "http://localhost:3000",
    version: "1",
    chainId: "solana:mainnet",
    nonce: "oBbLoEldZs",
    issuedAt: "2026-11-26T23:00:00Z",
  };

  test("reads back what was written, with or without a statement, and resources", () => {
    for (const fields of [full, { ...full, statement: undefined }, { ...full, resources: ["https://x.example/a"] }, { domain: "d.example", address: ADDRESS }]) {
      const parsed = parseSignInMessage(signInMessageText(fields));
      expect(parsed).toEqual({ ok: true, fields: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as never });
    }
  });

  test("a message as a wallet writes it, trailing newline tolerated", () => {
    const text = `localhost:3000 wants you to sign in with your Solana account:\n${ADDRESS}\n\nURI: http://localhost:3000\nVersion: 1\nNonce: oBbLoEldZs\nIssued At: 2026-11-26T23:00:00Z\n`;
    expect(parseSignInMessage(text)).toEqual({
      ok: true,
      fields: { domain: "localhost:3000", address: ADDRESS, uri: "http://localhost:3000", version: "1", nonce: "oBbLoEldZs", issuedAt: "2026-11-26T23:00:00Z" },
    });
  });

  const problem = (text: string) => {
    const r = parseSignInMessage(text);
    return r.ok ? null : r.problem;
  };
  const good = signInMessageText(full);

  test("refuses what the grammar does not make, saying where", () => {
    expect(problem(good.replaceAll("\n", "\r\n"))).toBe("lines must end with LF only");
    expect(problem(good.replace(" wants you to sign in", " wants you to log in"))).toStartWith("the first line must be");
    expect(problem(" wants you to sign in with your Solana account:\n" + ADDRESS)).toStartWith("the first line must be");
    expect(problem("a.example wants you to sign in with your Solana account:\n")).toBe("the second line must be the account address");
    expect(problem(good.replace("Version: 1\n", "") + "\nVersion: 1")).toBe('line 10: "Version:" is repeated or out of order');
    expect(problem(good.replace("Nonce: oBbLoEldZs", "Nonce: oBbLoEldZs\nNonce: other"))).toBe('line 10: "Nonce:" is repeated or out of order');
    expect(problem(good + "\nHello: there")).toBe("line 11 is not a field of a sign-in message");
    expect(problem(good.replace("Nonce: oBbLoEldZs", "Nonce: "))).toBe('line 9: "Nonce:" is empty');
    expect(problem(good.replace(`${ADDRESS}\n\n`, `${ADDRESS}\n`))).toBe("a blank line must follow the address");
    expect(problem(good.replace(`${ADDRESS}\n\n`, `${ADDRESS}\n\n\n`))).toBe("one blank line only after the address");
    expect(problem(good.replace("you.\n\n", "you.\n"))).toBe("a blank line must follow the statement");
    expect(problem(signInMessageText({ ...full, resources: ["a"] }) + "\nURI: x")).toBe('line 13: only "- <resource>" lines may follow "Resources:"');
  });
});

describe("agreement with the Wallet Standard's own parser", () => {
  test("what we build, the library reads back field for field, and so do we", () => {
    const fields = {
      domain: "agents.example", address: ADDRESS, statement: "Sign in to agents.example.", uri: "https://agents.example", version: "1",
      chainId: "mainnet", nonce: "a1b2c3d4e5", issuedAt: "2026-11-26T23:00:00.000Z", expirationTime: "2026-11-26T23:05:00.000Z",
    };
    const text = signInMessageText(fields);
    expect(parseSignInMessageText(text)).toMatchObject(fields);
    const ours = parseSignInMessage(text);
    expect(ours.ok && ours.fields).toMatchObject(fields);
  });
});
