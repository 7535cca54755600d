import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import type { HttpTarget } from "@svc/core";
import { describeError, elapsedMs } from "./elapsed.ts";

/** One http checker run over its targets, each with the same timeout (ms) for the whole exchange. */
export interface HttpProbeTarget {
  targets: readonly HttpTarget[];
  timeoutMs: number;
}

/**
 * Outcome of one request. `ok` = a response arrived within the timeout, its status matches `expectStatus`
 * (0 = any 2xx/3xx; redirects are not followed) and, when `bodyPattern` is set, the body matches it.
 * Phases, ms, each measured from the start of the request (cumulative, like curl's -w timings):
 * `dnsMs` lookup done (absent for an IP-literal host), `connectMs` TCP established, `tlsMs` TLS handshake done
 * (https only), `ttfbMs` response headers received, `totalMs` body fully read.
 * Every request uses a fresh connection (no keep-alive agent), so every phase is measured every time.
 */
export interface HttpProbeResult {
  url: string;
  method: string;
  ok: boolean;
  error?: string;
  /** 0 when no response arrived */
  statusCode: number;
  dnsMs?: number;
  connectMs?: number;
  tlsMs?: number;
  ttfbMs?: number;
  totalMs?: number;
}

/** Bodies longer than this are not read further for the pattern check. */
const MAX_BODY_BYTES = 1024 * 1024;

function statusMatches(status: number, expect: number): boolean {
  return expect === 0 ? status >= 200 && status < 400 : status === expect;
}

/** Performs one request. Never throws for network outcomes; an invalid URL is reported as data too. */
export function probeHttpTarget(target: HttpTarget, timeoutMs: number): Promise<HttpProbeResult> {
  const method = (target.method || "GET").toUpperCase();
  const base: HttpProbeResult = { url: target.url, method, ok: false, statusCode: 0 };
  let url: URL;
  try {
    url = new URL(target.url);
  } catch (err) {
    return Promise.resolve({ ...base, error: describeError(err) });
  }
  const secure = url.protocol === "https:";
  if (!secure && url.protocol !== "http:") {
    return Promise.resolve({ ...base, error: `unsupported scheme ${url.protocol}` });
  }
  return new Promise((resolve) => {
    const start = performance.now();
    const result: HttpProbeResult = { ...base };
    let settled = false;
    const finish = (error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      if (error !== undefined) {
        result.ok = false;
        result.error = error;
      }
      resolve(result);
    };
    const options: https.RequestOptions = {
      method,
      agent: false,
      headers: { "user-agent": "svc-agent", connection: "close" },
      ...(secure ? { rejectUnauthorized: !target.insecureSkipVerify } : {}),
    };
    const req = (secure ? https : http).request(url, options, (res) => {
      result.ttfbMs = elapsedMs(start);
      result.statusCode = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        if (size < MAX_BODY_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      res.on("error", (err) => finish(describeError(err)));
      res.on("end", () => {
        result.totalMs = elapsedMs(start);
        if (!statusMatches(result.statusCode, target.expectStatus)) {
          const want = target.expectStatus === 0 ? "2xx/3xx" : String(target.expectStatus);
          return finish(`status ${result.statusCode}, want ${want}`);
        }
        if (target.bodyPattern) {
          let re: RegExp;
          try {
            re = new RegExp(target.bodyPattern);
          } catch (err) {
            return finish(describeError(err));
          }
          if (!re.test(Buffer.concat(chunks).toString("utf8")))
            return finish("body does not match bodyPattern");
        }
        result.ok = true;
        finish();
      });
    });
    req.on("socket", (socket: Socket) => {
      socket.once("lookup", () => {
        result.dnsMs = elapsedMs(start);
      });
      socket.once("connect", () => {
        result.connectMs = elapsedMs(start);
      });
      socket.once("secureConnect", () => {
        result.tlsMs = elapsedMs(start);
      });
    });
    req.on("error", (err) => finish(describeError(err)));
    const timer = setTimeout(() => finish(`timeout after ${timeoutMs}ms`), timeoutMs);
    req.end();
  });
}

/** Probes every target concurrently; one result per target, in target order. */
export function probeHttp(target: HttpProbeTarget): Promise<HttpProbeResult[]> {
  return Promise.all(target.targets.map((t) => probeHttpTarget(t, target.timeoutMs)));
}
