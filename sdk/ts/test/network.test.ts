// Failures without an answer: the request reached shipd and did its work,
// but the answer was lost. The SDK sends it again only when that is safe:
// a GET, or a POST with its Idempotency-Key (shipd then replays the answer).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Shipd, ShipdError, ShipdNetworkError, type FetchFn } from "../src/index.js";
import { eventually, sandboxSettings } from "./fixtures.js";
import { startShipd, type LiveShipd } from "./harness.js";
import { recordingFetch, type Exchange } from "./recorder.js";

let live: LiveShipd;
let key = "";

before(async () => {
  live = await startShipd();
  key = await live.newKey("sdk-ts-network");
});

after(async () => {
  await live?.stop();
});

/** Sends each request to shipd, but loses the answer of the first `lose` of them. */
function losingAnswers(lose: number): FetchFn {
  let lost = 0;
  return async (request) => {
    const response = await fetch(request);
    if (lost < lose) {
      lost++;
      await response.arrayBuffer();
      throw new TypeError("fetch failed: connection reset (simulated, after shipd answered)");
    }
    return response;
  };
}

function client(fetchFn: FetchFn, idempotencyKeys = true) {
  return new Shipd({ baseUrl: live.baseUrl, apiKey: key, fetch: fetchFn, idempotencyKeys, retry: { baseDelayMs: 20 } });
}

async function channelsNamed(name: string, expected: number) {
  const reader = client((r) => fetch(r));
  return eventually(async () => {
    const all = (await reader.channels.list({ per_page: 100 }).all()).filter((c) => c.name === name);
    return all.length >= expected ? all : undefined;
  });
}

test("a POST with its Idempotency-Key is sent again and replayed, creating one resource", async () => {
  const exchanges: Exchange[] = [];
  const shipd = client(recordingFetch(exchanges, losingAnswers(1)));
  const created = await shipd.channels.create({ name: "Lost answer", provider: "sandbox", settings: sandboxSettings });
  assert.deepEqual(
    exchanges.map((x) => x.status),
    ["network-error", 201],
  );
  const keys = exchanges.map((x) => x.request.headers.get("Idempotency-Key"));
  assert.ok(keys[0] && keys[0] === keys[1], `keys ${keys.join(" / ")}`);
  assert.equal(exchanges[1]!.response!.headers.get("Idempotent-Replayed"), "true");
  const named = await channelsNamed("Lost answer", 1);
  assert.deepEqual(
    named.map((c) => c.id),
    [created.data.id],
  );
});

test("a POST without a key is not sent again: the caller gets a ShipdNetworkError", async () => {
  const exchanges: Exchange[] = [];
  const shipd = client(recordingFetch(exchanges, losingAnswers(1)), false);
  const err = await shipd.channels.create({ name: "Keyless", provider: "sandbox", settings: sandboxSettings }).catch((e: unknown) => e);
  assert.ok(err instanceof ShipdNetworkError, String(err));
  assert.equal(err.attempts, 1);
  assert.equal(exchanges.length, 1);
  assert.equal(exchanges[0]!.request.headers.get("Idempotency-Key"), null);
  // It did reach shipd: a retry would have made a second channel.
  assert.equal((await channelsNamed("Keyless", 1)).length, 1);
});

test("a GET is sent again; a PATCH or a DELETE is not", async () => {
  const setup = client((r) => fetch(r));
  const ch = await setup.channels.create({ name: "Patched", provider: "sandbox", settings: sandboxSettings });

  const gets: Exchange[] = [];
  const got = await client(recordingFetch(gets, losingAnswers(2))).channels.get(ch.data.id);
  assert.equal(got.data.id, ch.data.id);
  assert.deepEqual(
    gets.map((x) => x.status),
    ["network-error", "network-error", 200],
  );

  const patches: Exchange[] = [];
  const err = await client(recordingFetch(patches, losingAnswers(1)))
    .channels.update(ch.data.id, { description: "once" })
    .catch((e: unknown) => e);
  assert.ok(err instanceof ShipdNetworkError);
  assert.equal(patches.length, 1);

  // Sent again after it worked, the DELETE would answer 404: a failure
  // reported for a delete that succeeded.
  const deletes: Exchange[] = [];
  const gone = await client(recordingFetch(deletes, losingAnswers(1)))
    .channels.delete(ch.data.id)
    .catch((e: unknown) => e);
  assert.ok(gone instanceof ShipdNetworkError);
  assert.equal(deletes.length, 1);
});

test("an unreachable server: GET retried up to maxRetries, then ShipdNetworkError", async () => {
  const exchanges: Exchange[] = [];
  // Port 9 (discard) on loopback: nothing listens, the connection is refused.
  const shipd = new Shipd({ baseUrl: "http://127.0.0.1:9", apiKey: key, fetch: recordingFetch(exchanges), retry: { baseDelayMs: 10, maxRetries: 2 } });
  const err = await shipd.providers().catch((e: unknown) => e);
  assert.ok(err instanceof ShipdNetworkError, String(err));
  assert.equal(err.attempts, 3);
  assert.equal(exchanges.length, 3);
});

test("a 503 without Retry-After is retried with backoff, then a ShipdError", async () => {
  const exchanges: Exchange[] = [];
  const shipd = client(recordingFetch(exchanges));
  // The sandbox's clientSecret "unavailable" makes the carrier unreachable: 503 provider_unavailable.
  const ch = await shipd.channels.create({ name: "Down", provider: "sandbox", settings: { clientId: "a", clientSecret: "unavailable" } });
  exchanges.length = 0;
  const err = await shipd.channels.validate(ch.data.id).catch((e: unknown) => e);
  assert.ok(err instanceof ShipdError, String(err));
  assert.equal(err.status, 503);
  assert.equal(err.code, "provider_unavailable");
  assert.deepEqual(
    exchanges.map((x) => x.status),
    [503, 503, 503, 503],
  );
  // One key for the call, so each retry is the same request to shipd.
  assert.equal(new Set(exchanges.map((x) => x.request.headers.get("Idempotency-Key"))).size, 1);
});
