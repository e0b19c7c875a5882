import { equalBytes, fromBase64, hmacSha256, toBase64, toHex } from "./hmac.js";
import type { WebhookEvent } from "./types.js";
import { WebhookHeaderError, WebhookSignatureError, WebhookTimestampError } from "./webhook-errors.js";

export {
  WebhookHeaderError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
} from "./webhook-errors.js";

/** Request headers as a Fetch Headers object or a plain record (Node's IncomingHttpHeaders). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds (default 300, as standardwebhooks). */
  toleranceSeconds?: number;
  /** The clock (default Date.now). */
  now?: () => number;
}

const defaultTolerance = 5 * 60;
const prefix = "whsec_";
const utf8 = new TextEncoder();

/**
 * Verifies a webhook delivery from shipd and returns its event.
 *
 * secret is the subscription's secret as shipd showed it (`generated_secret`,
 * or the one you set): shipd keys its HMACs with the secret's own bytes. A
 * `whsec_` + base64 secret (the Standard Webhooks form) is decoded as the
 * standardwebhooks package decodes it, and a Uint8Array is the key itself;
 * so a shipd secret that itself begins with `whsec_` must be passed as its
 * bytes (`new TextEncoder().encode(secret)`).
 *
 * With Standard Webhooks headers (webhook-id, webhook-timestamp,
 * webhook-signature) the delivery is accepted exactly when the
 * standardwebhooks package accepts it; an X-Service-Signature beside them
 * must verify too. Without them, X-Service-Signature (`sha256=` and the hex
 * HMAC of the body) and X-Service-Timestamp within the tolerance are
 * required: that scheme signs the body only, so the timestamp check there
 * is advisory, and the Standard Webhooks one is the stronger.
 *
 * body must be the raw body as received, before any JSON parsing.
 * Rejects with WebhookSignatureError (changed body, wrong secret),
 * WebhookTimestampError (outside the tolerance) or WebhookHeaderError
 * (missing or malformed header), all WebhookVerificationError.
 */
export async function verifyWebhook(
  secret: string | Uint8Array,
  headers: HeadersLike,
  body: string | Uint8Array,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const key = keyOf(secret);
  const header = reader(headers);
  const raw = typeof body === "string" ? utf8.encode(body) : body;
  const payload = typeof body === "string" ? body : new TextDecoder().decode(body);
  const tolerance = options.toleranceSeconds ?? defaultTolerance;
  const now = Math.floor((options.now ?? Date.now)() / 1000);

  const id = header("webhook-id");
  const timestamp = header("webhook-timestamp");
  const signature = header("webhook-signature");
  const bodySignature = header("x-service-signature");
  if (id !== undefined || timestamp !== undefined || signature !== undefined) {
    await verifyStandard(key, id, timestamp, signature, payload, now, tolerance);
    if (bodySignature !== undefined) await verifyBodySignature(key, bodySignature, raw);
  } else if (bodySignature !== undefined) {
    checkTimestamp(header("x-service-timestamp"), now, tolerance, "X-Service-Timestamp");
    await verifyBodySignature(key, bodySignature, raw);
  } else {
    throw new WebhookHeaderError("no signature headers: expected webhook-signature or X-Service-Signature");
  }
  return JSON.parse(payload) as WebhookEvent;
}

/** The HMAC key a secret stands for (see verifyWebhook). */
function keyOf(secret: string | Uint8Array): Uint8Array {
  let key: Uint8Array;
  if (typeof secret !== "string") key = secret;
  else if (secret.startsWith(prefix)) key = fromBase64(secret.slice(prefix.length));
  else key = utf8.encode(secret);
  if (key.length === 0) throw new TypeError("webhook secret is empty");
  return key;
}

/** A case-insensitive header lookup; a header sent as several values is malformed. */
function reader(headers: HeadersLike): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === "function") {
    const h = headers as Headers;
    return (name) => h.get(name) ?? undefined;
  }
  const byName = new Map<string, string | string[] | undefined>();
  for (const [k, v] of Object.entries(headers)) byName.set(k.toLowerCase(), v);
  return (name) => {
    const v = byName.get(name);
    if (Array.isArray(v)) throw new WebhookHeaderError(`${name} is sent more than once`);
    return v;
  };
}

/**
 * Standard Webhooks, step by step as the standardwebhooks package does it:
 * all three headers non-empty; the timestamp read with parseInt (so "17…x"
 * reads as its leading digits, and the number read is what is signed); the
 * signature header a space-separated list of "version,base64", of which a
 * "v1" one must equal the HMAC of "id.timestamp.body".
 */
async function verifyStandard(
  key: Uint8Array,
  id: string | undefined,
  timestamp: string | undefined,
  signature: string | undefined,
  payload: string,
  now: number,
  tolerance: number,
): Promise<void> {
  if (!id || !timestamp || !signature) {
    throw new WebhookHeaderError("webhook-id, webhook-timestamp and webhook-signature are all required");
  }
  const t = checkTimestamp(timestamp, now, tolerance, "webhook-timestamp");
  const expected = utf8.encode(toBase64(await hmacSha256(key, `${id}.${t}.${payload}`)));
  let versioned = false;
  for (const entry of signature.split(" ")) {
    const [version, sig] = entry.split(",");
    if (version !== "v1") continue;
    versioned = true;
    if (equalBytes(utf8.encode(sig ?? ""), expected)) return;
  }
  if (!versioned) throw new WebhookHeaderError("webhook-signature has no v1 signature");
  throw new WebhookSignatureError("no webhook-signature matches: the body was changed or the secret is not this one");
}

/** The timestamp as a number within the tolerance of now. */
function checkTimestamp(value: string | undefined, now: number, tolerance: number, name: string): number {
  if (!value) throw new WebhookHeaderError(`${name} is required`);
  const t = Number.parseInt(value, 10);
  if (Number.isNaN(t)) throw new WebhookHeaderError(`${name} is not a number`);
  if (now - t > tolerance) throw new WebhookTimestampError(`${name} is too old (${now - t} s)`);
  if (t > now + tolerance) throw new WebhookTimestampError(`${name} is in the future (${t - now} s)`);
  return t;
}

/** GitHub's scheme: "sha256=" and the hex HMAC-SHA256 of the raw body. */
async function verifyBodySignature(key: Uint8Array, value: string, raw: Uint8Array): Promise<void> {
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(value);
  if (!m) throw new WebhookHeaderError('X-Service-Signature is not "sha256=" and 64 hex digits');
  const expected = utf8.encode(toHex(await hmacSha256(key, raw)));
  if (!equalBytes(utf8.encode(m[1]!.toLowerCase()), expected)) {
    throw new WebhookSignatureError("X-Service-Signature does not match: the body was changed or the secret is not this one");
  }
}
