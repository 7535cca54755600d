/**
 * Serves the built web app (apps/console/dist/web beside the bundle, apps/web/dist from the sources) from the
 * console's HTTP port: files under the build root as they are, and index.html for every other GET outside /api/
 * and /ws, so client-side routes survive a reload. Unknown /api/ paths keep the console's JSON 404.
 *
 * The file list is read once at registration: only files that were in the build are ever served (no path from a
 * request reaches the file system). index.html carries the auth mode in `<meta name="svc-auth-mode">`, because
 * the sign-in page must know it before any API call succeeds (GET /api/v1/config needs a caller).
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";

/** Options of addWebRoutes. */
export interface WebRoutesOptions {
  /** the Vite build output directory (contains index.html) */
  root: string;
  /** `auth.mode` of the console, told to the sign-in page */
  authMode: string;
}

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json",
};

/** Content-Security-Policy of every page: the bundle only, no inline script, no framing. */
export const WEB_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/**
 * The built web app, or undefined when it was not built (a console without it still serves its API; only the pages
 * are missing). Bundled (apps/console/dist/console.mjs, `npm run build`): the `web` directory beside the bundle.
 * From the sources: the web app's own build output (apps/web/dist, `vite build` in apps/web), else what
 * `npm run build` put beside the bundle (apps/console/dist/web): a fresh clone after `npm run setup` has only that.
 */
export function findWebRoot(): string | undefined {
  for (const rel of ["./web", "../../../web/dist", "../../dist/web"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, "index.html"))) return dir;
  }
  return undefined;
}

interface WebFile {
  body: Buffer;
  type: string;
  immutable: boolean;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

function escapeAttr(s: string): string {
  return s.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Registers `GET /*` (and HEAD) on `app`. Call before `listen()`. Rejects when `root` has no index.html (the app
 * was not built: `npm run build -w @svc/web`).
 */
export async function addWebRoutes(app: FastifyInstance, opts: WebRoutesOptions): Promise<void> {
  const files = new Map<string, WebFile>();
  for (const path of await listFiles(opts.root)) {
    const rel = relative(opts.root, path).split(sep).join("/");
    files.set(`/${rel}`, {
      body: await readFile(path),
      type:
        (Object.hasOwn(TYPES, extname(path)) ? TYPES[extname(path)] : undefined) ??
        "application/octet-stream",
      immutable: rel.startsWith("assets/"),
    });
  }
  const indexFile = files.get("/index.html");
  if (!indexFile) throw new Error(`no index.html under ${opts.root}: build the web app first`);
  const meta = `<meta name="svc-auth-mode" content="${escapeAttr(opts.authMode)}">`;
  const index: WebFile = {
    ...indexFile,
    body: Buffer.from(indexFile.body.toString("utf8").replace("<head>", `<head>\n    ${meta}`)),
  };
  files.delete("/index.html");

  const send = (reply: FastifyReply, f: WebFile) =>
    reply
      .header("content-type", f.type)
      .header("cache-control", f.immutable ? "public, max-age=31536000, immutable" : "no-cache")
      .header("x-content-type-options", "nosniff")
      .header("x-frame-options", "DENY")
      .header("referrer-policy", "same-origin")
      .header("content-security-policy", WEB_CSP)
      .send(f.body);

  app.route({
    method: ["GET", "HEAD"],
    url: "/*",
    handler: async (req, reply) => {
      const path = (req.url.split("?")[0] ?? "/").split("#")[0] ?? "/";
      if (path.startsWith("/api/") || path === "/api" || path === "/ws" || path.startsWith("/ws/")) {
        return reply.callNotFound();
      }
      const f = files.get(path);
      if (f) return send(reply, f);
      // a missing asset is a 404, not the app shell (a stale tab would otherwise parse HTML as JS)
      if (path.startsWith("/assets/")) return reply.callNotFound();
      return send(reply, index);
    },
  });
}
