/** GET /api/v1/config: the console's configuration as the web app needs it, and which backends exist. */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";

/** Body of GET /api/v1/config. */
export const ConsoleConfigView = z
  .object({
    version: z.string(),
    auth: z.object({
      mode: z.enum(["anonymous", "header", "local", "oidc"]),
      anonymousBanner: z.boolean().describe("anonymous mode: every page shows a warning banner"),
      anonymousRole: z.string(),
      loginPath: z.string().nullable().describe("where the sign-in form posts (local mode)"),
      oidcStartPath: z
        .string()
        .nullable()
        .describe(
          "where the browser goes to sign in (oidc mode); query returnTo names the page to come back to",
        ),
      csrfCookie: z.string(),
      csrfHeader: z.string(),
      passwordMinLength: z.number().int(),
      sessionTtlSeconds: z.number(),
      sessionIdleTimeoutSeconds: z.number(),
    }),
    backends: z.object({
      database: z.boolean(),
      databaseKind: z.enum(["postgres", "pglite"]).nullable(),
      history: z.boolean().describe("event history and other history features need the database"),
      redis: z.boolean(),
      prometheus: z.boolean(),
      controller: z.boolean(),
      kubernetesContext: z.boolean(),
    }),
  })
  .meta({ id: "ConsoleConfigView" });
export type ConsoleConfigView = z.infer<typeof ConsoleConfigView>;

export const getConfig = route({
  name: "getConfig",
  method: "GET",
  path: "/api/v1/config",
  tag: "config",
  summary: "Console configuration (auth mode, CSRF names, session bounds) and which backends exist",
  access: "caller",
  spec: true,
  responses: { 200: ConsoleConfigView, ...errors(401) },
});
