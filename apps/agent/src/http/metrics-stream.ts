import type { ServerResponse } from "node:http";
import { Registry } from "prom-client";

/**
 * The registry's text exposition one metric family at a time. The bytes are those of registry.metrics()
 * (families joined by a blank line, a final newline), but only one family's text exists at a time: at 1000
 * peers the whole exposition is ~20 MiB, which registry.metrics() builds on every scrape (all families at
 * once, then joined). OpenMetrics (counter renaming, `# EOF`) is left to prom-client in one piece.
 */
export async function* metricsChunks(registry: Registry): AsyncGenerator<string> {
  if (registry.contentType !== Registry.PROMETHEUS_CONTENT_TYPE) {
    yield await registry.metrics();
    return;
  }
  let first = true;
  for (const metric of registry.getMetricsAsArray()) {
    const text = await registry.getSingleMetricAsString(metric.name);
    yield first ? text : `\n\n${text}`;
    first = false;
  }
  yield "\n";
}

/**
 * Sends `chunks` as a chunked 200 body, waiting for the socket to drain between chunks. The first chunk is
 * made before the status line, so a failure there is still a 500 (`onError`); a later failure cuts the
 * connection (the scraper sees a failed scrape, never a truncated one as a success).
 */
export async function sendChunks(
  res: ServerResponse,
  type: string,
  chunks: AsyncIterator<string>,
  head: boolean,
  onError: (err: unknown) => void,
): Promise<void> {
  let next: IteratorResult<string>;
  try {
    next = await chunks.next();
  } catch (err) {
    onError(err);
    return;
  }
  res.writeHead(200, { "content-type": type });
  if (head) {
    res.end();
    await chunks.return?.();
    return;
  }
  try {
    while (!next.done) {
      if (!res.write(next.value)) await drained(res);
      if (res.destroyed) {
        await chunks.return?.();
        return;
      }
      next = await chunks.next();
    }
    res.end();
  } catch {
    res.destroy();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}
