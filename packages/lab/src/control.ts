/**
 * The lab process's control listener: `svc lab fault|heal|status` from another terminal ask the running lab,
 * which owns its agents (a stopped agent is started again by the heal) and its timers (a flapping link). It
 * listens on 127.0.0.1 only, and every request carries the token from the lab's state file (readable by its owner
 * only). Bodies are at most 16 KiB; bad words answer 400 with the reason and change nothing.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Fault, parseFault } from "./faults.ts";
import type { LabState } from "./state.ts";

const MAX_BODY = 16 * 1024;

/** What the listener drives. */
export interface ControlTarget {
  fault(f: Fault): Promise<void>;
  heal(): Promise<void>;
  state(): LabState;
}

/** A running listener. */
export interface LabControl {
  url: string;
  token: string;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, `body over ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw new HttpError(400, "body is not JSON");
  }
}

function authorized(req: IncomingMessage, token: string): boolean {
  const got = Buffer.from(String(req.headers.authorization ?? ""));
  const want = Buffer.from(`Bearer ${token}`);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Starts the listener on 127.0.0.1 (port 0). */
export async function startControl(target: ControlTarget): Promise<LabControl> {
  const token = randomBytes(24).toString("base64url");
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!authorized(req, token))
      throw new HttpError(401, "wrong or missing token (see the lab's state file)");
    const path = new URL(req.url ?? "/", "http://lab").pathname;
    if (req.method === "GET" && path === "/status") return send(res, 200, target.state());
    if (req.method === "POST" && path === "/heal") {
      await target.heal();
      return send(res, 200, target.state());
    }
    if (req.method === "POST" && path === "/fault") {
      const body = await readBody(req);
      const words = (body as { words?: unknown }).words;
      if (
        !Array.isArray(words) ||
        words.length > 8 ||
        !words.every((w) => typeof w === "string" && w.length <= 253)
      )
        throw new HttpError(400, "words: an array of at most 8 strings");
      let fault: Fault;
      try {
        fault = parseFault(words as string[]);
      } catch (err) {
        throw new HttpError(400, err instanceof Error ? err.message : String(err));
      }
      await target.fault(fault);
      return send(res, 200, target.state());
    }
    throw new HttpError(404, `no ${req.method} ${path}`);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 400;
      send(res, status, { error: err instanceof Error ? err.message : String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Asks a running lab's control listener; rejects with the lab's reason. */
export async function callControl(
  state: LabState,
  method: "GET" | "POST",
  path: "/status" | "/heal" | "/fault",
  body?: unknown,
): Promise<LabState> {
  if (!state.control) throw new Error(`lab ${state.index} has no control listener (started by an older svc)`);
  const res = await fetch(`${state.control.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${state.control.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  const answer = (await res.json()) as LabState & { error?: string };
  if (!res.ok) throw new Error(answer.error ?? `lab answered ${res.status}`);
  return answer;
}
