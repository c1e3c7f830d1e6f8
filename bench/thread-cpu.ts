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
