/**
 * Every feature's route descriptions and named schemas, in the order the reference page
 * shows them. A feature describes its routes in its own `openapi.ts`; a new feature adds
 * one line here (api/README.md "OpenAPI").
 */
import type { RouteDoc, Schema } from "./route";
import { dataApiRoutes, dataApiSchemas } from "../public/openapi";
import { exportRoutes } from "../exports/openapi";
import { appPublicRoutes, appPublicSchemas } from "../app-public/openapi";
import { poolRoutes, poolSchemas } from "../pools/openapi";
import { daemonRoutes, daemonSchemas } from "../daemons/openapi";
import { contestRoutes, contestSchemas } from "../contests/openapi";
import { treasuryRoutes, treasurySchemas } from "../treasury/openapi";
import { authRoutes, authSchemas } from "../auth/openapi";
import { meRoutes, meSchemas } from "../me/openapi";
import { launchRoutes, launchSchemas } from "../launches/openapi";
import { mediaRoutes } from "../media/openapi";
import { ingestRoutes } from "../ingest/openapi";

export type Feature = { routes: readonly RouteDoc[]; schemas?: Record<string, Schema> };

export const FEATURES: Feature[] = [
  { routes: dataApiRoutes, schemas: dataApiSchemas },
  { routes: exportRoutes },
  { routes: appPublicRoutes, schemas: appPublicSchemas },
  { routes: poolRoutes, schemas: poolSchemas },
  { routes: daemonRoutes, schemas: daemonSchemas },
  { routes: treasuryRoutes, schemas: treasurySchemas },
  { routes: contestRoutes, schemas: contestSchemas },
  { routes: authRoutes, schemas: authSchemas },
  { routes: meRoutes, schemas: meSchemas },
  { routes: launchRoutes, schemas: launchSchemas },
  { routes: mediaRoutes },
  { routes: ingestRoutes },
];

/** The named schemas of every feature; a name used twice is a mistake. */
export function namedSchemas(features: readonly Feature[] = FEATURES): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const f of features)
    for (const [name, schema] of Object.entries(f.schemas ?? {})) {
      if (out[name] && out[name] !== schema) throw new Error(`two schemas are named ${name}`);
      out[name] = schema;
    }
  return out;
}
