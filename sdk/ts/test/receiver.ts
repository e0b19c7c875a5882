// A webhook receiver on a loopback port: keeps each delivery's headers and
// raw body as they arrived, and answers 204.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** The first delivery matching, waiting up to timeoutMs for it. */
  waitFor(match: (d: Delivery) => boolean, timeoutMs?: number): Promise<Delivery>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (typeof addr !== "object" || addr === null) throw new Error("receiver has no address");
  return {
    url: `http://127.0.0.1:${addr.port}/hooks`,
    deliveries,
    async waitFor(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = deliveries.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching delivery in ${timeoutMs} ms (${deliveries.length} received)`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
