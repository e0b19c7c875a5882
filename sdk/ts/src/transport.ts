import { ShipdNetworkError } from "./errors.js";
import { backoffMs, isIdempotent, isRetryableStatus, retryAfterMs, type RetryPolicy } from "./retry.js";
import { sleep as defaultSleep } from "./sleep.js";
import { webCrypto } from "./webcrypto.js";

/** The fetch the transport sends each attempt with. */
export type FetchFn = (request: Request) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchFn;
  retry: RetryPolicy;
  /** Give each POST without an Idempotency-Key a fresh one. */
  idempotencyKeys: boolean;
  /** Makes an Idempotency-Key (default: a random UUID). */
  newIdempotencyKey?: () => Promise<string>;
  /** Waits between attempts (tests replace it to record the waits). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The fetch every SDK request goes through: it gives a POST its
 * Idempotency-Key (one per call, kept across that call's retries, so a
 * retry is recognised by shipd as the same request), and sends the request
 * again after a 429 or 503 (after Retry-After, else a backoff) and, for
 * idempotent requests only, after a failure without an answer.
 */
export function transport(o: TransportOptions): FetchFn {
  const newKey = o.newIdempotencyKey ?? (async () => (await webCrypto()).randomUUID());
  const wait = o.sleep ?? defaultSleep;
  return async (request) => {
    if (o.idempotencyKeys && request.method === "POST" && !request.headers.has("Idempotency-Key")) {
      request.headers.set("Idempotency-Key", await newKey());
    }
    const idempotent = isIdempotent(request.method, request.headers);
    const max = o.retry.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        // A clone per attempt: a body can be read once, and the original
        // stays unread for the next attempt.
        response = await o.fetch(request.clone());
      } catch (err) {
        if (request.signal.aborted) throw err;
        if (!idempotent || attempt >= max) {
          const why = err instanceof Error ? err.message : String(err);
          throw new ShipdNetworkError(`${request.method} ${request.url}: ${why}`, attempt + 1, err);
        }
        await wait(backoffMs(attempt, o.retry), request.signal);
        continue;
      }
      if (!isRetryableStatus(response.status) || attempt >= max) return response;
      const asked = retryAfterMs(response.headers.get("Retry-After"));
      if (asked !== undefined && asked > o.retry.maxRetryAfterMs) return response;
      // The answer is dropped: release its connection.
      await response.body?.cancel();
      await wait(asked ?? backoffMs(attempt, o.retry), request.signal);
    }
  };
}
