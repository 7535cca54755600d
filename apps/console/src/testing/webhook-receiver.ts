/**
 * Test helper: a webhook receiver on 127.0.0.1 (port 0) that keeps every delivery's raw body and `X-Svc-Signature`
 * and answers each with the next status of `answers` (204 once they run out).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One delivery as it arrived. */
export interface Delivery {
  body: Buffer;
  signature: string | undefined;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  readonly url: string;
  readonly received: Delivery[];
  /** statuses the next deliveries get, in order (shifted as they are used) */
  readonly answers: number[];
  readonly listening: boolean;
  close(): Promise<void>;
}

/** Starts a receiver. */
export async function startWebhookReceiver(answers: number[] = []): Promise<WebhookReceiver> {
  const received: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        body: Buffer.concat(chunks),
        signature: req.headers["x-svc-signature"] as string | undefined,
      });
      res.writeHead(answers.shift() ?? 204);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answers,
    get listening() {
      return server.listening;
    },
    close: () => (server.listening ? new Promise<void>((r) => server.close(() => r())) : Promise.resolve()),
  };
}
