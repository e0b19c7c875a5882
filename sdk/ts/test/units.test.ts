// The SDK's pure pieces, on inputs the live tests do not reach.
import assert from "node:assert/strict";
import { test } from "node:test";
import { filenameOf } from "../src/label.js";
import { fromBase64, toBase64 } from "../src/hmac.js";
import { Paginator, type Page } from "../src/pages.js";
import { backoffMs, defaultRetryPolicy, isIdempotent, retryAfterMs } from "../src/retry.js";

test("Retry-After as seconds or an HTTP date", () => {
  assert.equal(retryAfterMs("7"), 7000);
  assert.equal(retryAfterMs(" 0 "), 0);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now), 30_000);
  assert.equal(retryAfterMs("Wed, 31 Dec 2025 23:00:00 GMT", now), 0);
  assert.equal(retryAfterMs(null), undefined);
  assert.equal(retryAfterMs("soon"), undefined);
  assert.equal(retryAfterMs("-3"), undefined);
});

test("backoff doubles up to the cap, with jitter between half and all", () => {
  const p = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(backoffMs(0, p, () => 0), 50);
  assert.equal(backoffMs(0, p, () => 1), 100);
  assert.equal(backoffMs(2, p, () => 1), 400);
  assert.equal(backoffMs(10, p, () => 1), 1000);
});

test("which requests are idempotent", () => {
  const none = new Headers();
  const keyed = new Headers({ "Idempotency-Key": "k" });
  for (const m of ["GET", "HEAD"]) assert.equal(isIdempotent(m, none), true, m);
  for (const m of ["PUT", "DELETE"]) assert.equal(isIdempotent(m, keyed), false, m);
  assert.equal(isIdempotent("POST", none), false);
  assert.equal(isIdempotent("POST", keyed), true);
  assert.equal(isIdempotent("PATCH", keyed), false);
});

test("Content-Disposition filenames", () => {
  assert.equal(filenameOf('attachment; filename="sh_1.pdf"'), "sh_1.pdf");
  assert.equal(filenameOf("attachment; filename=sh_1.zpl"), "sh_1.zpl");
  assert.equal(filenameOf('attachment; filename="a \\"b\\".pdf"'), 'a "b".pdf');
  assert.equal(filenameOf("attachment"), undefined);
  assert.equal(filenameOf(null), undefined);
});

test("base64 both ways, as Node's Buffer reads it", () => {
  for (let n = 0; n < 40; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
    const b64 = Buffer.from(bytes).toString("base64");
    assert.equal(toBase64(bytes), b64);
    if (n > 2) assert.deepEqual(fromBase64(b64), new Uint8Array(bytes));
  }
  assert.throws(() => fromBase64("ab!d"), TypeError);
  assert.throws(() => fromBase64("a==="), TypeError);
});

test("a Paginator asks for each page once and stops at the last", async () => {
  const asked: number[] = [];
  const items = [1, 2, 3, 4, 5];
  const list = new Paginator<number>(async (page) => {
    asked.push(page);
    const data = items.slice((page - 1) * 2, page * 2);
    const last = 3;
    return {
      data,
      meta: { current_page: page, last_page: last, per_page: 2, total: 5, from: null, to: null, path: "" },
      links: { first: "", last: "", prev: null, next: page < last ? "next" : null },
    } satisfies Page<number>;
  });
  assert.deepEqual(await list.all(), items);
  assert.deepEqual(asked, [1, 2, 3]);
});
