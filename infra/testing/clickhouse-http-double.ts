/**
 * TEST DOUBLE, not ClickHouse: a loopback server speaking the slice of ClickHouse's HTTP
 * interface that @clickhouse/client uses (query, command, insert, ping), executing every
 * statement on chDB. The real client and the real SQL thus meet real ClickHouse semantics
 * (types, parameters, settings, materialized views, error texts) without a server.
 *
 *   bun infra/testing/clickhouse-http-double.ts <data-dir> [port]    → prints `listening <port>`
 *
 * chDB allows one data directory per process, so this runs as its own process
 * (see clickhouse-http-double-process.ts). Requests run one at a time: settings and
 * parameters are session state here, where a server scopes them to the request.
 *
 * Test-only controls (not ClickHouse): POST /__double/fail?times=N&status=S (body = the
 * response body to answer the next N requests with) and POST /__double/drop?times=N&when=before|after
 * (reset the connection of the next N requests before or after executing them).
 *
 * Not modelled, so untested until a real server runs: auth/users/roles (ignored), sessions
 * (session_id ignored; SET/USE requests are no-ops as on a sessionless server), multipart
 * parameters, readonly GET, the server's refusal of multi-statement requests (chDB runs them),
 * progress headers and exceptions in mid-stream, a real X-ClickHouse-Summary, concurrency
 * (one statement at a time here), compression other than gzip, Native/RowBinary bodies (text only).
 */
import { Session } from "chdb";
import { createServer } from "node:http";

const [dataDir, portArg] = process.argv.slice(2);
if (!dataDir) {
  console.error("usage: clickhouse-http-double.ts <data-dir> [port]");
  process.exit(2);
}
const session = new Session(dataDir);
const VERSION = (await session.queryAsync("SELECT version()", { format: "TabSeparated" })).text().trim();

// URL parameters the HTTP handler consumes itself; every other one is a setting, as on the server
const HTTP_PARAMS = new Set(["query", "database", "query_id", "session_id", "session_timeout", "session_check", "default_format", "user", "password", "quota_key", "compress", "decompress", "buffer_size", "wait_end_of_query", "role", "stacktrace"]);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
// the server's exceptionCodeToHTTPStatus, by error name (the client only needs "not 2xx", but keep it honest)
const STATUS_BY_NAME: Record<string, number> = {};
for (const n of "BAD_ARGUMENTS CANNOT_COMPILE_REGEXP CANNOT_PARSE_TEXT CANNOT_PARSE_ESCAPE_SEQUENCE CANNOT_PARSE_QUOTED_STRING CANNOT_PARSE_DATE CANNOT_PARSE_DATETIME CANNOT_PARSE_NUMBER CANNOT_PARSE_INPUT_ASSERTION_FAILED CANNOT_PARSE_UUID DUPLICATE_COLUMN ILLEGAL_COLUMN THERE_IS_NO_COLUMN SYNTAX_ERROR INCORRECT_DATA TYPE_MISMATCH VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE".split(" ")) STATUS_BY_NAME[n] = 400;
for (const n of "UNKNOWN_TABLE UNKNOWN_FUNCTION UNKNOWN_IDENTIFIER UNKNOWN_TYPE UNKNOWN_STORAGE UNKNOWN_DATABASE UNKNOWN_SETTING UNKNOWN_AGGREGATE_FUNCTION UNKNOWN_FORMAT UNKNOWN_DATABASE_ENGINE UNKNOWN_TYPE_OF_QUERY".split(" ")) STATUS_BY_NAME[n] = 404;

/** A ClickHouse-side failure: `Code: N. DB::Exception: text. (NAME)`, as chDB's errors already read. */
class ChError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

const literal = (s: string) => `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

async function run(sql: string, format = "TabSeparated") {
  try {
    return await session.queryAsync(sql, { format });
  } catch (e) {
    const err = e as Error & { clickhouseCode?: number };
    throw new ChError(err.clickhouseCode ?? 1000, err.message);
  }
}

/**
 * One request, the way the HTTP handler runs it: URL settings apply to this query only
 * (SET here, back to DEFAULT after), `param_*` bind `{name:Type}` placeholders, and the
 * `query` URL parameter and the body are joined by a newline (an INSERT's data follows it).
 */
async function execute(url: URL, body: string): Promise<Uint8Array> {
  const urlQuery = url.searchParams.get("query");
  const sql = urlQuery !== null ? (body ? `${urlQuery}\n${body}` : urlQuery) : body;
  if (!sql.trim()) throw new ChError(62, "Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)");
  const settings: string[] = [];
  const params = new Map<string, string>();
  for (const [k, v] of url.searchParams) {
    if (k.startsWith("param_")) params.set(k.slice(6), v);
    else if (!HTTP_PARAMS.has(k)) settings.push(k);
    if (!IDENT.test(k)) throw new ChError(115, `Code: 115. DB::Exception: Unknown setting '${k}'. (UNKNOWN_SETTING)`);
  }
  // SET param_x stays in the session, so a placeholder this request does not bind must fail here as it would on a server
  for (const m of (urlQuery ?? body).matchAll(/\{\s*([A-Za-z_]\w*)\s*:/g)) {
    if (!params.has(m[1]!)) throw new ChError(456, `Code: 456. DB::Exception: Substitution \`${m[1]}\` is not set. (UNKNOWN_QUERY_PARAMETER)`);
  }
  const database = url.searchParams.get("database");
  // without session_id a server forgets SET and USE after the request; the chDB session would keep them
  if (/^\s*SET\b/i.test(sql)) return new Uint8Array();
  const restoreDb = database !== null || /^\s*USE\b/i.test(sql);
  try {
    // parameter values are the client's text form (TSV-escaped scalars, `['a','b']` arrays); a SET
    // hands that text to the engine untouched (queryBindAsync would escape it a second time)
    for (const [name, value] of params) await run(`SET param_${name} = ${literal(value)}`);
    for (const k of settings) await run(`SET ${k} = ${literal(url.searchParams.get(k)!)}`);
    if (database) await run(`USE \`${database.replaceAll("`", "\\`")}\``);
    return (await run(sql)).bytes();
  } finally {
    for (const k of settings) await run(`SET ${k} = DEFAULT`).catch(() => {});
    if (restoreDb) await run("USE default").catch(() => {});
  }
}

function errorResponse(err: unknown): Response {
  const e = err instanceof ChError ? err : new ChError(1001, `Code: 1001. DB::Exception: ${(err as Error)?.message ?? err}. (STD_EXCEPTION)`);
  const name = /\(([A-Z0-9_]+)\)\s*$/.exec(e.message)?.[1] ?? "";
  return new Response(`${e.message} (version ${VERSION})\n`, {
    status: STATUS_BY_NAME[name] ?? 500,
    headers: { "Content-Type": "text/plain; charset=UTF-8", "X-ClickHouse-Exception-Code": String(e.code) },
  });
}

/** Marks a request whose connection must be reset (the client sees ECONNRESET). */
const RESET = new Response(null, { status: 599 });
const resetConnection = () => RESET;

let failures: { times: number; status: number; body: string } = { times: 0, status: 500, body: "" };
let drops: { times: number; when: string } = { times: 0, when: "before" };
let queue: Promise<unknown> = Promise.resolve();

async function handle(req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname.startsWith("/__double/")) {
    const times = Number(url.searchParams.get("times") ?? 1);
    if (url.pathname === "/__double/fail") failures = { times, status: Number(url.searchParams.get("status") ?? 500), body: await req.text() };
    else if (url.pathname === "/__double/drop") drops = { times, when: url.searchParams.get("when") ?? "before" };
    else return new Response("unknown control\n", { status: 404 });
    return new Response("Ok.\n");
  }
  if (url.pathname === "/ping" || (url.pathname === "/" && req.method === "GET" && !url.searchParams.has("query"))) return new Response("Ok.\n");
  if (url.pathname !== "/") return new Response(`There is no handle ${url.pathname}\n`, { status: 404 });

  let raw = new Uint8Array(await req.arrayBuffer());
  if (req.headers.get("content-encoding") === "gzip") raw = Bun.gunzipSync(raw);
  else if (req.headers.get("content-encoding")) return errorResponse(new ChError(1001, `Code: 1001. DB::Exception: clickhouse-http-double: unsupported Content-Encoding ${req.headers.get("content-encoding")}. (STD_EXCEPTION)`));
  if (failures.times > 0) {
    failures.times--;
    const code = /^Code: (\d+)\./.exec(failures.body)?.[1];
    return new Response(failures.body, { status: failures.status, headers: code ? { "X-ClickHouse-Exception-Code": code } : {} });
  }
  const drop = drops.times > 0 ? (drops.times--, drops.when) : null;
  if (drop === "before") return resetConnection();

  const result = queue.then(() => execute(url, new TextDecoder().decode(raw)));
  queue = result.catch(() => {});
  let out: Uint8Array<ArrayBuffer>;
  try {
    out = new Uint8Array(await result);
  } catch (err) {
    return drop ? resetConnection() : errorResponse(err);
  }
  if (drop) return resetConnection(); // executed (an INSERT is committed), but the client never hears so
  const headers: Record<string, string> = { "Content-Type": "text/plain; charset=UTF-8", "X-ClickHouse-Summary": "{}" };
  const queryId = url.searchParams.get("query_id");
  if (queryId) headers["X-ClickHouse-Query-Id"] = queryId;
  // enable_http_compression=1 + Accept-Encoding: gzip is the server's condition to compress the response
  if (url.searchParams.get("enable_http_compression") === "1" && /\bgzip\b/.test(req.headers.get("accept-encoding") ?? "")) {
    headers["Content-Encoding"] = "gzip";
    out = Bun.gzipSync(out);
  }
  return new Response(out, { headers });
}

// node:http rather than Bun.serve: query parameters travel in the URL, and ClickHouse accepts
// URLs up to 1 MiB (http_max_uri_size); Bun.serve refuses far shorter ones.
const server = createServer({ maxHeaderSize: 1024 * 1024, requestTimeout: 0 }, async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const method = req.method ?? "GET";
  const request = new Request(`http://127.0.0.1${req.url}`, { method, headers, body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks) });
  const response = await handle(request);
  if (response === RESET) return void req.socket.destroy();
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out);
  res.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(Number(portArg ?? 0), "127.0.0.1", () => console.log(`listening ${(server.address() as { port: number }).port}`));
