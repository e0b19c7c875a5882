import { webCrypto } from "./webcrypto.js";

const utf8 = new TextEncoder();

/** HMAC-SHA256 of message keyed with key (WebCrypto: no dependency, any platform). */
export async function hmacSha256(key: Uint8Array, message: Uint8Array | string): Promise<Uint8Array> {
  const subtle = (await webCrypto()).subtle;
  // Copies: WebCrypto takes only views of a plain ArrayBuffer.
  const k = await subtle.importKey("raw", new Uint8Array(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const data = typeof message === "string" ? utf8.encode(message) : new Uint8Array(message);
  return new Uint8Array(await subtle.sign("HMAC", k, data));
}

/** Compares in time that depends on the lengths only, not on where they differ. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/**
 * Standard base64, read as the standardwebhooks package reads a `whsec_`
 * secret: at most two `=` of padding, at least four characters, padding
 * optional, any character outside the alphabet an error.
 */
export function fromBase64(s: string): Uint8Array {
  if (s.length === 0) return new Uint8Array(0);
  let pad = 0;
  while (pad < s.length && s[s.length - 1 - pad] === "=") pad++;
  if (s.length < 4 || pad > 2) throw new TypeError("base64: incorrect padding");
  const n = s.length - pad;
  const out = new Uint8Array(Math.floor((n * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < n; i++) {
    const v = alphabet.indexOf(s[i]!);
    if (v < 0) throw new TypeError("base64: incorrect characters");
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (o < out.length) out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
