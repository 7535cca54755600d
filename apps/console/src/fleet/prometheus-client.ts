/**
 * A small client of the Prometheus HTTP API (/api/v1/query, /api/v1/query_range) that enforces the console's
 * query limits (spec §8.1): every request is aborted after `queryTimeoutMs` (and passes `timeout` to Prometheus),
 * and a response body over `maxResponseBytes` is refused while it streams in, never buffered whole.
 * Queries go as POST form bodies, so long label regexes never hit URL length limits.
 */
import { InvalidInputError } from "../errors.ts";
import { MetricsUpstreamError } from "./fleet-errors.ts";

/** One series of an instant vector: its labels and value. */
export interface InstantSample {
  metric: Record<string, string>;
  value: number;
  /** sample time, epoch seconds */
  t: number;
}

/** One series of a range query: its labels and [epochSeconds, value] points. */
export interface RangeSeries {
  metric: Record<string, string>;
  points: [number, number][];
}

/** Limits and address of the client. */
export interface PrometheusClientOptions {
  /** base URL without trailing slash */
  url: string;
  queryTimeoutMs: number;
  maxResponseBytes: number;
}

interface ApiBody<T> {
  status: string;
  error?: string;
  data?: { resultType: string; result: T[] };
}

type RawInstant = { metric: Record<string, string>; value: [number, string] };
type RawRange = { metric: Record<string, string>; values: [number, string][] };

/** Reads a Prometheus HTTP API with limits; failures are MetricsUpstreamError (502). */
export class PrometheusClient {
  constructor(
    private readonly opts: PrometheusClientOptions,
    /** default evaluation time of instant queries (epoch seconds); undefined = Prometheus's now */
    private readonly defaultTime?: number,
  ) {}

  /** The same client with instant queries evaluated at `seconds` (the Time Machine). */
  atTime(seconds: number): PrometheusClient {
    return new PrometheusClient(this.opts, seconds);
  }

  /** Instant query at `time` (epoch seconds; default this client's time, else Prometheus's now). Vectors only. */
  async query(promql: string, time?: number): Promise<InstantSample[]> {
    const params: Record<string, string> = { query: promql };
    const at = time ?? this.defaultTime;
    if (at !== undefined) params.time = String(at);
    const rows = await this.call<RawInstant>("/api/v1/query", params, "vector");
    return rows.map((r) => ({ metric: r.metric, t: r.value[0], value: Number(r.value[1]) }));
  }

  /** Range query from `start` to `end` (epoch seconds) every `stepSeconds`. */
  async queryRange(promql: string, start: number, end: number, stepSeconds: number): Promise<RangeSeries[]> {
    const params = { query: promql, start: String(start), end: String(end), step: String(stepSeconds) };
    const rows = await this.call<RawRange>("/api/v1/query_range", params, "matrix");
    return rows.map((r) => ({ metric: r.metric, points: r.values.map(([t, v]) => [t, Number(v)]) }));
  }

  /**
   * A caller's query as Prometheus answers it (`resultType` and `result` of any type), under the same limits;
   * `params` as the Prometheus API takes them (query, time / start, end, step).
   */
  async raw(
    kind: "query" | "query_range",
    params: Record<string, string>,
  ): Promise<{ resultType: string; result: unknown }> {
    return this.fetchData<unknown>(`/api/v1/${kind}`, params, true);
  }

  private async call<T>(path: string, params: Record<string, string>, want: string): Promise<T[]> {
    const data = await this.fetchData<T>(path, params);
    if (data.resultType !== want)
      throw new MetricsUpstreamError(`metrics query gave ${data.resultType}, not ${want}`);
    return data.result as T[];
  }

  private async fetchData<T>(
    path: string,
    params: Record<string, string>,
    /** a caller's own query: Prometheus refusing it (400 / 422 bad_data) is the caller's error, not an outage */
    callers = false,
  ): Promise<{ resultType: string; result: T[] | unknown }> {
    const form = new URLSearchParams({
      ...params,
      timeout: `${Math.ceil(this.opts.queryTimeoutMs / 1000)}s`,
    });
    let text: string;
    let status: number;
    try {
      const res = await fetch(`${this.opts.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form,
        signal: AbortSignal.timeout(this.opts.queryTimeoutMs),
      });
      status = res.status;
      text = await readLimited(res, this.opts.maxResponseBytes);
    } catch (e) {
      if (e instanceof MetricsUpstreamError) throw e;
      const why = e instanceof Error && e.name === "TimeoutError" ? "timed out" : "unreachable";
      throw new MetricsUpstreamError(`metrics server ${why}`);
    }
    let body: ApiBody<T>;
    try {
      body = JSON.parse(text) as ApiBody<T>;
    } catch {
      throw new MetricsUpstreamError(`metrics server answered ${status} without JSON`);
    }
    if (callers && (status === 400 || status === 422) && body.status === "error")
      throw new InvalidInputError(`query: ${body.error ?? "refused by the metrics server"}`);
    if (body.status !== "success" || !body.data)
      throw new MetricsUpstreamError(`metrics query failed: ${body.error ?? `status ${status}`}`);
    return body.data;
  }
}

async function readLimited(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "");
  if (declared > max) {
    await res.body?.cancel();
    throw new MetricsUpstreamError(`metrics response over maxResponseBytes (${max})`);
  }
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new MetricsUpstreamError(`metrics response over maxResponseBytes (${max})`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
