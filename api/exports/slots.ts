/**
 * At most `perClient` exports at once per client address. An export holds its slot
 * until the engine's query has stopped (finished, failed, or the client went away), so
 * a client that disconnects and reconnects cannot stack queries.
 */
export type ExportSlots = {
  /** a release function (call it once), or null when the client already runs `perClient` exports */
  take(client: string): (() => void) | null;
  /** exports running now for this client (tests and metrics) */
  running(client: string): number;
};

export function createExportSlots(perClient: number): ExportSlots {
  const running = new Map<string, number>();
  return {
    take(client) {
      const n = running.get(client) ?? 0;
      if (n >= perClient) return null;
      running.set(client, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (running.get(client) ?? 1) - 1;
        if (left <= 0) running.delete(client);
        else running.set(client, left);
      };
    },
    running: (client) => running.get(client) ?? 0,
  };
}
