// Records every request the SDK sends and the status it got, and tells
// which of the OpenAPI document's operations they were.
import type { FetchFn } from "../src/index.js";

export interface Exchange {
  method: string;
  path: string;
  status: number | "network-error";
  request: Request;
  response?: Response;
  at: number;
}

export function recordingFetch(into: Exchange[], next: FetchFn = (r) => fetch(r)): FetchFn {
  return async (request) => {
    const path = new URL(request.url).pathname;
    try {
      const response = await next(request);
      into.push({ method: request.method, path, status: response.status, request, response, at: Date.now() });
      return response;
    } catch (err) {
      into.push({ method: request.method, path, status: "network-error", request, at: Date.now() });
      throw err;
    }
  };
}

interface Operation {
  id: string;
  method: string;
  pattern: RegExp;
}

/** Every operation of the document, with a pattern of the path it is served on. */
export function operationsOf(doc: { servers?: { url: string }[]; paths: Record<string, Record<string, unknown>> }): Operation[] {
  const base = doc.servers?.[0]?.url ?? "";
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const id = (op as { operationId?: string }).operationId;
      if (!id) continue;
      const source = (base + path).replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+");
      ops.push({ id, method: method.toUpperCase(), pattern: new RegExp(`^${source}$`) });
    }
  }
  return ops;
}

/** The operations of the document the exchanges include a 2xx answer of. */
export function answeredOperations(ops: Operation[], exchanges: Exchange[]): Set<string> {
  const done = new Set<string>();
  for (const x of exchanges) {
    if (typeof x.status !== "number" || x.status < 200 || x.status > 299) continue;
    const op = ops.find((o) => o.method === x.method && o.pattern.test(x.path));
    if (op) done.add(op.id);
  }
  return done;
}
