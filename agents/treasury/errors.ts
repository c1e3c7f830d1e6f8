/**
 * The refusals every treasury action shares live in api/errors/treasury.ts, where the API's
 * routes can use them too (api/ does not import agents/); re-exported here for the actions.
 */
export * from "../../api/errors/treasury";
