/** A webhook delivery that did not verify. Catch this for all three kinds. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

/**
 * The signature headers are well formed but no signature matches: the body
 * (or id, or timestamp) was changed, or the secret is not the one shipd
 * signs with. The two cannot be told apart, by design of an HMAC.
 */
export class WebhookSignatureError extends WebhookVerificationError {
  override name = "WebhookSignatureError";
}

/** The timestamp is further than the tolerance (5 minutes) from now: a stale, replayed or future message. */
export class WebhookTimestampError extends WebhookVerificationError {
  override name = "WebhookTimestampError";
}

/** A signature header is missing or malformed (no v1 signature, a timestamp that is not a number, no `sha256=` hex). */
export class WebhookHeaderError extends WebhookVerificationError {
  override name = "WebhookHeaderError";
}
