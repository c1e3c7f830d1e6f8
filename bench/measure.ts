/** Latency and throughput measurement helpers for the benchmarks. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export type LatencyReport = { p50: number; p99: number; rps: number; errors: number };

/** Sequential requests for latency, then `concurrency` loops for `seconds` for throughput. */
export async function measureUrl(url: string, opts: { samples: number; concurrency: number; seconds: number }): Promise<LatencyReport> {
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < opts.samples; i++) {
    const t = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    times.push(performance.now() - t);
    if (!res.ok) errors++;
  }
  times.sort((a, b) => a - b);
  let done = 0;
  const until = performance.now() + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < until) {
        const res = await fetch(url);
        await res.arrayBuffer();
        if (!res.ok) errors++;
        done++;
      }
    }),
  );
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), rps: Math.round(done / opts.seconds), errors };
}

export const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Peak resident set size of this process (VmHWM), in MiB. */
export async function peakRssMiB(): Promise<number> {
  const status = await Bun.file("/proc/self/status").text();
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? round(Number(m[1]) / 1024, 0) : round(process.memoryUsage().rss / 2 ** 20, 0);
}

/** Resets the peak RSS counter (Linux), so a phase's own peak can be read after it. */
export async function resetPeakRss(): Promise<void> {
  try {
    await Bun.write("/proc/self/clear_refs", "5");
  } catch {}
}

/**
 * Waits until the process's RSS stops falling (chDB returns the memory of a bulk load to
 * the OS a few seconds after it), at most `maxMs`; returns the settled RSS in MiB.
 */
export async function settleRss(maxMs = 60_000): Promise<number> {
  const rss = () => process.memoryUsage.rss() / 2 ** 20;
  const end = Date.now() + maxMs;
  let last = rss();
  let steady = 0;
  while (Date.now() < end && steady < 3) {
    await Bun.sleep(1000);
    const now = rss();
    steady = now > last * 0.98 ? steady + 1 : 0;
    last = now;
  }
  return round(last, 0);
}
