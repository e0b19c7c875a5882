import type { Client } from "openapi-fetch";
import { ShipdError } from "./errors.js";
import type { paths } from "./schema.gen.js";

/** The typed openapi-fetch client the resources call through. */
export type Api = Client<paths, `${string}/${string}`>;

/** Per-call options. */
export interface RequestOptions {
  /** Cancels the call, retries and waits included. */
  signal?: AbortSignal;
  /**
   * The POST's Idempotency-Key. Without one the SDK makes a fresh key per
   * call; pass your own (e.g. your order id) to make a call repeatable across
   * processes: shipd then answers a repeat with the first answer.
   */
  idempotencyKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** openapi-fetch's init for the options. */
export function init(o: RequestOptions | undefined): { signal?: AbortSignal; headers: Record<string, string> } {
  const headers = { ...o?.headers };
  if (o?.idempotencyKey !== undefined) headers["Idempotency-Key"] = o.idempotencyKey;
  return o?.signal ? { signal: o.signal, headers } : { headers };
}

type Answer<T> = { data: T; error?: never; response: Response } | { data?: never; error: unknown; response: Response };

/**
 * The answer's body on a 2xx; a ShipdError otherwise. (openapi-fetch types
 * data as possibly undefined, for its error branch; on a 2xx with a body it
 * is the body. A 204 has none, and its callers return void.)
 */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw ShipdError.fromResponse(response, error);
  return data as NonNullable<T>;
}
