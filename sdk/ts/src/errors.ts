import type { components } from "./schema.gen.js";

/** Field errors as shipd sends them: a dotted field path to its messages. */
export type FieldErrors = Record<string, string[]>;

/**
 * An error answer from shipd (any status outside 2xx), read from its one
 * error shape (`{"message", "errors"?, "error": {"code", "message",
 * "status", "request_id", "errors"?}}`). An answer not in that shape (a
 * proxy's HTML page, say) still becomes a ShipdError, with the status and
 * the X-Request-Id header, so callers need only one catch.
 */
export class ShipdError extends Error {
  override readonly name = "ShipdError";
  /** The HTTP status of the answer. */
  readonly status: number;
  /** shipd's error code, e.g. `validation_failed`, `rate_limit_exceeded`; `http_<status>` when the body had none. */
  readonly code: string;
  /** Field errors of a 422 (empty otherwise). */
  readonly fields: FieldErrors;
  /** The request's id (error.request_id, else the X-Request-Id header): quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (Retry-After), when it said. */
  readonly retryAfter: number | undefined;
  /** The answer's body as parsed (JSON) or its text. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    fields?: FieldErrors;
    requestId?: string | undefined;
    retryAfter?: number | undefined;
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.fields = init.fields ?? {};
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }

  /** Builds the error of an answer whose body has already been read. */
  static fromResponse(response: Response, body: unknown): ShipdError {
    const shaped = isErrorBody(body) ? body : undefined;
    const detail = shaped?.error;
    const header = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
    const retryAfter = Number.isFinite(header) ? header : detail?.retry_after;
    return new ShipdError({
      status: response.status,
      code: detail?.code || `http_${response.status}`,
      message: detail?.message || shaped?.message || `shipd answered ${response.status} ${response.statusText}`.trim(),
      fields: detail?.errors ?? shaped?.errors ?? {},
      requestId: detail?.request_id || response.headers.get("X-Request-Id") || undefined,
      retryAfter,
      body,
    });
  }
}

/**
 * A request that never got an answer (connection refused or reset, DNS,
 * TLS) after the retries the request allowed: only idempotent requests are
 * retried after such a failure, since the first attempt may have done its
 * work. `cause` is the platform fetch's error.
 */
export class ShipdNetworkError extends Error {
  override readonly name = "ShipdNetworkError";
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.attempts = attempts;
  }
}

type ErrorBody = components["schemas"]["ErrorBody"];

function isErrorBody(v: unknown): v is ErrorBody {
  if (typeof v !== "object" || v === null) return false;
  const error = (v as { error?: unknown }).error;
  return typeof error === "object" && error !== null;
}
