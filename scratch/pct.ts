import { fixtureSimConfigs } from "../ingest/simulator";
import { simulatedConfigRegistry } from "../ingest/simulator/platform-configs";
const r = simulatedConfigRegistry(fixtureSimConfigs(7));
console.log(r.all.map((c) => [c.role, c.quote.kind, c.creatorPct]), r.launch?.address);
