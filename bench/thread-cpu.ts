/**
 * CPU time per thread name of this process, from /proc (Linux): which engine threads
 * (chDB's insert, view and merge pools, the decode workers, the main thread) spend the CPU.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ = 100 on Linux

export type ThreadCpu = Map<string, number>;

export function threadCpu(): ThreadCpu {
  const out: ThreadCpu = new Map();
  for (const tid of readdirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[0-9]+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    out.set(name, (out.get(name) ?? 0) + ms);
  }
  return out;
}

/** CPU spent per thread name between two readings (threads that ended in between are lost). */
export function threadCpuSince(before: ThreadCpu): [string, number][] {
  const now = threadCpu();
  return [...now].map(([name, ms]) => [name, ms - (before.get(name) ?? 0)] as [string, number]).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
}

/** Busy and total CPU time of the whole machine (all processes: the embedded Postgres too), in ms. */
export function machineCpu(): { busy: number; total: number } {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0) * TICK_MS;
  const idle = (cpu[3]! + cpu[4]!) * TICK_MS;
  return { busy: total - idle, total };
}

/** CPU time (ms) of every process named `comm` on the machine (e.g. the embedded Postgres's backends). */
export function processCpu(comm: string): number {
  let ms = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== comm) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ms += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      // the process ended
    }
  }
  return ms;
}

/** CPU time (ms) of the processes whose command line contains `text`, and of their children (a postmaster's backends). */
export function cpuOfCommandLine(text: string): number {
  const procs: { pid: string; ppid: string; ms: number; matches: boolean }[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      procs.push({ pid, ppid: fields[1]!, ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS, matches: readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text) });
    } catch {
      // the process ended
    }
  }
  const roots = new Set(procs.filter((p) => p.matches).map((p) => p.pid));
  return procs.reduce((ms, p) => ms + (p.matches || roots.has(p.ppid) ? p.ms : 0), 0);
}

export type CpuReport = {
  /** load averages (1, 5, 15 min) at the end */
  load: number[];
  machineBusyPercent: number;
  /** µs of CPU per transaction: this process (every thread), the Kafka broker, Postgres */
  processUs: number;
  brokerUs: number;
  postgresUs: number;
  /** µs of CPU per transaction per thread name of this process */
  threadsUs: Record<string, number>;
};

/**
 * CPU from now on, per transaction when `report` is called: this process per thread name, the
 * Kafka broker (processes whose command line holds `brokerMark`, default this process's TMPDIR,
 * where the test broker keeps its state) and the embedded Postgres whose data folder is under
 * `postgresMark` (its postmaster and backends).
 */
export function cpuWindow(postgresMark: string, brokerMark = (process.env.TMPDIR ?? "/tmp") + "/acp-kafka-") {
  const threads0 = threadCpu();
  const machine0 = machineCpu();
  const cpu0 = process.cpuUsage();
  const broker0 = cpuOfCommandLine(brokerMark);
  const postgres0 = cpuOfCommandLine(postgresMark);
  return {
    report(transactions: number): CpuReport {
      const cpu = process.cpuUsage(cpu0);
      const machine = machineCpu();
      const per = (ms: number) => Math.round((ms * 1000) / transactions);
      return {
        load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number),
        machineBusyPercent: Math.round((100 * (machine.busy - machine0.busy)) / (machine.total - machine0.total)),
        processUs: Math.round((cpu.user + cpu.system) / transactions),
        brokerUs: per(cpuOfCommandLine(brokerMark) - broker0),
        postgresUs: per(cpuOfCommandLine(postgresMark) - postgres0),
        threadsUs: Object.fromEntries(threadCpuSince(threads0).map(([name, ms]) => [name, per(ms)])),
      };
    },
  };
}
