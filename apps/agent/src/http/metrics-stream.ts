import type { ServerResponse } from "node:http";

/**
 * Sends `chunks` as a chunked 200 body, waiting for the socket to drain between chunks. The first chunk is
 * made before the status line, so a failure there is still a 500 (`onError`); a later failure cuts the
 * connection (the scraper sees a failed scrape, never a truncated one as a success).
 */
export async function sendChunks(
  res: ServerResponse,
  type: string,
  chunks: Iterator<string>,
  head: boolean,
  onError: (err: unknown) => void,
): Promise<void> {
  let next: IteratorResult<string>;
  try {
    next = chunks.next();
  } catch (err) {
    onError(err);
    return;
  }
  res.writeHead(200, { "content-type": type });
  if (head) {
    res.end();
    chunks.return?.();
    return;
  }
  try {
    while (!next.done) {
      if (!res.write(next.value)) await drained(res);
      if (res.destroyed) {
        chunks.return?.();
        return;
      }
      next = chunks.next();
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
