/** When and how long to wait before trying a request again. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  maxRetries: number;
  /** The first backoff; doubled each retry (default 500 ms). */
  baseDelayMs: number;
  /** The longest backoff (default 30 s). */
  maxDelayMs: number;
  /**
   * The longest Retry-After waited for (default 65 s: shipd's rate-limit
   * window is a minute, so a 429 never asks for more). An answer asking for
   * longer is returned as it is, as an error, rather than stalling the caller.
   */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 65_000,
};

/**
 * 429 (rate limited) and 503 (shipd's database or a carrier unreachable)
 * mean the request was not carried out, and shipd says when to come back:
 * both are safe to send again whatever the method. Other 5xx are not
 * retried: shipd answers 500 for a bug, which a retry does not fix.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * Whether a request may be sent again after it failed without an answer,
 * when it may have reached shipd and done its work: a read (GET, HEAD,
 * OPTIONS), or a POST with an Idempotency-Key, since shipd then answers a
 * repeat with the first answer instead of doing the work twice. Not PUT,
 * PATCH or DELETE: a DELETE sent again after it worked answers 404, which
 * would report a failure for a delete that succeeded, and shipd keeps no key
 * for them.
 */
export function isIdempotent(method: string, headers: Headers): boolean {
  switch (method.toUpperCase()) {
    case "GET":
    case "HEAD":
    case "OPTIONS":
      return true;
    case "POST":
      return headers.has("Idempotency-Key");
    default:
      return false;
  }
}

/**
 * The wait a Retry-After header asks for, in ms: delay-seconds or an
 * HTTP-date (RFC 9110 10.2.3). undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP-date names its day and month; without letters Date.parse would
  // take "-3" for the year -3.
  if (!/[A-Za-z]/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Exponential backoff with jitter (a random wait between half and all of
 * the doubled delay), so clients that failed together do not retry together.
 * retry is 0 for the first retry.
 */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling * (0.5 + random() / 2));
}
