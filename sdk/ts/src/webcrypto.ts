/**
 * The platform's WebCrypto. Browsers, Deno, Bun and Node 19+ have it as
 * globalThis.crypto; Node 18 keeps it behind a flag there, but exports it
 * from node:crypto, so that is the fallback (reached only on Node 18).
 */
export async function webCrypto(): Promise<Crypto> {
  if (globalThis.crypto?.subtle) return globalThis.crypto;
  const nodeCrypto = await import("node:crypto");
  return nodeCrypto.webcrypto as unknown as Crypto;
}
