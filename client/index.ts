/**
 * A typed client of the platform's HTTP API for integrators: openapi-fetch over the types
 * generated from the OpenAPI document (schema.ts). Every path, parameter, body and answer
 * is typed; errors come back as `error` with the spec's envelope.
 *
 *   const api = createPlatformClient({ baseUrl: "https://api.example" });
 *   const { data, error } = await api.GET("/v1/public/agents/{mint}", { params: { path: { mint } } });
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

export type { components, operations, paths };
export type PlatformClient = Client<paths>;
/** The error envelope every error answer carries: `{ error: { code, message, details? } }`. */
export type ApiErrorBody = components["schemas"]["ErrorEnvelope"];

export type PlatformClientOptions = Omit<ClientOptions, "querySerializer"> & {
  /** the API's base URL, e.g. https://api.example (no trailing /v1) */
  baseUrl: string;
  /** a wallet sign-in access token (signed-in and operator routes) or a Launch API key, sent as `Authorization: Bearer …` */
  bearer?: string;
};

export function createPlatformClient({ bearer, headers, ...options }: PlatformClientOptions): PlatformClient {
  return createClient<paths>({
    ...options,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(headers as Record<string, string> | undefined) },
    // comma lists (`kinds=post,trade`) as the API reads them: form style, not exploded
    querySerializer: { array: { style: "form", explode: false } },
  });
}
