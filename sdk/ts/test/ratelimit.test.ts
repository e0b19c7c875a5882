// A real 429 from shipd's rate limiter (an account of 5 requests a
// minute): the SDK waits as long as Retry-After says, then succeeds.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Shipd, ShipdError } from "../src/index.js";
import { startShipd, type LiveShipd } from "./harness.js";
import { recordingFetch, type Exchange } from "./recorder.js";

let live: LiveShipd;
let key = "";

before(async () => {
  live = await startShipd();
  key = await live.newKey("sdk-ts-limited", 5);
});

after(async () => {
  await live?.stop();
});

test("a 429 is waited out for Retry-After seconds and retried", { timeout: 120_000 }, async () => {
  const exchanges: Exchange[] = [];
  const shipd = new Shipd({ baseUrl: live.baseUrl, apiKey: key, fetch: recordingFetch(exchanges) });
  const impatient = new Shipd({ baseUrl: live.baseUrl, apiKey: key, retry: { maxRetryAfterMs: 0 } });

  // The limiter counts per calendar minute: start well inside one, so the
  // five requests and the sixth fall in the same window.
  const second = new Date().getSeconds();
  if (second >= 50) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
  for (let i = 0; i < 5; i++) await shipd.providers();
  // A client that will not wait that long gets the 429 as a ShipdError.
  const refused = await impatient.providers().catch((e: unknown) => e);
  assert.ok(refused instanceof ShipdError, String(refused));
  assert.equal(refused.status, 429);
  assert.equal(refused.code, "rate_limit_exceeded");
  assert.ok(refused.retryAfter !== undefined && refused.retryAfter >= 1 && refused.retryAfter <= 60, String(refused.retryAfter));

  const { data } = await shipd.providers();
  assert.ok(data.length > 0);
  const limited = exchanges.findIndex((x) => x.status === 429);
  assert.ok(limited >= 0, `no 429 among ${exchanges.map((x) => x.status).join(",")}`);
  const retryAfter = Number(exchanges[limited]!.response!.headers.get("Retry-After"));
  const next = exchanges[limited + 1]!;
  assert.equal(next.status, 200);
  const waited = next.at - exchanges[limited]!.at;
  // The retry is sent Retry-After seconds after the 429 arrived; the
  // recorded times are of answers, so the retry's own round trip adds to it.
  assert.ok(waited >= retryAfter * 1000, `waited ${waited} ms for Retry-After ${retryAfter}`);
  assert.ok(waited < retryAfter * 1000 + 5_000, `waited ${waited} ms for Retry-After ${retryAfter}`);
});
