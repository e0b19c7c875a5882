// Webhooks delivered by a real shipd, verified by the SDK, by the
// standardwebhooks package and by a plain HMAC check; then the SDK's
// verifier held to standardwebhooks' verdict on altered headers.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, test } from "node:test";
import { Webhook, WebhookVerificationError as LibError } from "standardwebhooks";
import {
  Shipd,
  verifyWebhook,
  WebhookHeaderError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
  type HeadersLike,
} from "../src/index.js";
import { sandboxSettings, shipmentBody } from "./fixtures.js";
import { startShipd, type LiveShipd } from "./harness.js";
import { startReceiver, type Delivery, type Receiver } from "./receiver.js";

let live: LiveShipd;
let receiver: Receiver;
let secret = "";
let delivery: Delivery;

before(async () => {
  live = await startShipd();
  receiver = await startReceiver();
  const shipd = new Shipd({ baseUrl: live.baseUrl, apiKey: await live.newKey("sdk-ts-webhooks") });
  const sub = await shipd.webhookSubscriptions.create({
    name: "verify",
    url: receiver.url,
    events: ["shipping_channel.created", "shipment.created", "shipment.status_changed"],
  });
  secret = sub.generated_secret!;
  const channel = await shipd.channels.create({ name: "Hooks", provider: "sandbox", settings: sandboxSettings });
  await shipd.channels.validate(channel.data.id);
  await shipd.shipments.create(shipmentBody(channel.data.id, "SDK-TS-HOOK"));
  delivery = await receiver.waitFor((d) => d.headers["x-service-event"] === "shipment.status_changed");
});

after(async () => {
  await receiver?.close();
  await live?.stop();
});

/** The Standard Webhooks headers of a delivery, as a plain record. */
function standardHeaders(d: Delivery): Record<string, string> {
  return {
    "webhook-id": String(d.headers["webhook-id"]),
    "webhook-timestamp": String(d.headers["webhook-timestamp"]),
    "webhook-signature": String(d.headers["webhook-signature"]),
  };
}

function githubHeaders(d: Delivery): Record<string, string> {
  return {
    "x-service-signature": String(d.headers["x-service-signature"]),
    "x-service-timestamp": String(d.headers["x-service-timestamp"]),
  };
}

const lib = () => new Webhook(`whsec_${Buffer.from(secret).toString("base64")}`);

async function sdkVerdict(headers: HeadersLike, body: string | Uint8Array = delivery.body, key: string | Uint8Array = secret) {
  try {
    await verifyWebhook(key, headers, body);
    return "accepted";
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.name;
    throw e;
  }
}

function libAccepts(headers: Record<string, string>, body: Buffer = delivery.body): boolean {
  try {
    lib().verify(body, headers);
    return true;
  } catch (e) {
    if (e instanceof LibError) return false;
    throw e;
  }
}

test("every delivery from shipd verifies with the SDK, standardwebhooks and a plain HMAC", async () => {
  assert.ok(receiver.deliveries.length >= 3, `${receiver.deliveries.length} deliveries`);
  for (const d of receiver.deliveries) {
    const event = await verifyWebhook(secret, d.headers as HeadersLike, d.body);
    assert.equal(event.id, d.headers["webhook-id"]);
    assert.equal(event.type, d.headers["x-service-event"]);
    // The same through a Fetch Headers object and with the body as text.
    const h = new Headers(d.headers as Record<string, string>);
    assert.equal((await verifyWebhook(secret, h, d.body.toString())).id, event.id);
    // The Standard Webhooks form of the secret is the same key.
    await verifyWebhook(`whsec_${Buffer.from(secret).toString("base64")}`, standardHeaders(d), d.body);

    assert.deepEqual(lib().verify(d.body, standardHeaders(d)), JSON.parse(d.body.toString()));
    const hex = createHmac("sha256", secret).update(d.body).digest("hex");
    assert.equal(d.headers["x-service-signature"], `sha256=${hex}`);
  }
  const shipmentEvent = await verifyWebhook(secret, delivery.headers as HeadersLike, delivery.body);
  assert.equal(shipmentEvent.type, "shipment.status_changed");
  if (shipmentEvent.type === "shipment.status_changed") assert.equal(shipmentEvent.data.shipment.status, "created");
});

test("a changed body or a wrong secret is a WebhookSignatureError, in both schemes", async () => {
  const changed = Buffer.from(delivery.body.toString().replace("SDK-TS-HOOK", "SDK-TS-HOOX"));
  assert.notDeepEqual(changed, delivery.body);
  assert.equal(await sdkVerdict(delivery.headers as HeadersLike, changed), "WebhookSignatureError");
  assert.equal(await sdkVerdict(standardHeaders(delivery), changed), "WebhookSignatureError");
  assert.equal(await sdkVerdict(githubHeaders(delivery), changed), "WebhookSignatureError");
  assert.equal(libAccepts(standardHeaders(delivery), changed), false);

  assert.equal(await sdkVerdict(delivery.headers as HeadersLike, delivery.body, `${secret}x`), "WebhookSignatureError");
  assert.equal(await sdkVerdict(githubHeaders(delivery), delivery.body, `${secret}x`), "WebhookSignatureError");
  await assert.rejects(verifyWebhook("not-the-secret", standardHeaders(delivery), delivery.body), WebhookSignatureError);
});

test("a stale or future timestamp is a WebhookTimestampError", async () => {
  const id = String(delivery.headers["webhook-id"]);
  for (const offset of [-301, -600, 301, 3600]) {
    const at = new Date((Math.floor(Date.now() / 1000) + offset) * 1000);
    const headers = {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": lib().sign(id, at, delivery.body.toString()),
    };
    assert.equal(libAccepts(headers), false, `standardwebhooks accepted ${offset}`);
    await assert.rejects(verifyWebhook(secret, headers, delivery.body), WebhookTimestampError);
  }
  // Within the tolerance, a message signed a while ago still verifies.
  const at = new Date((Math.floor(Date.now() / 1000) - 290) * 1000);
  const fresh = { "webhook-id": id, "webhook-timestamp": String(at.getTime() / 1000), "webhook-signature": lib().sign(id, at, delivery.body.toString()) };
  assert.equal(libAccepts(fresh), true);
  await verifyWebhook(secret, fresh, delivery.body);

  const stale = { ...githubHeaders(delivery), "x-service-timestamp": String(Math.floor(Date.now() / 1000) - 600) };
  await assert.rejects(verifyWebhook(secret, stale, delivery.body), WebhookTimestampError);
});

test("a missing or malformed header is a WebhookHeaderError", async () => {
  const std = standardHeaders(delivery);
  const cases: Record<string, string>[] = [
    {},
    { ...std, "webhook-signature": "" },
    { "webhook-id": std["webhook-id"]!, "webhook-timestamp": std["webhook-timestamp"]! },
    { ...std, "webhook-timestamp": "soon" },
    { ...std, "webhook-signature": "garbage" },
    { ...std, "webhook-signature": `v2,${std["webhook-signature"]!.slice(3)}` },
    { ...githubHeaders(delivery), "x-service-signature": "md5=abc" },
    { ...githubHeaders(delivery), "x-service-signature": String(delivery.headers["x-service-signature"]).slice(0, -1) },
    { "x-service-signature": String(delivery.headers["x-service-signature"]) },
  ];
  for (const headers of cases) {
    assert.equal(await sdkVerdict(headers), "WebhookHeaderError", JSON.stringify(headers));
    if (Object.keys(headers).some((k) => k.startsWith("webhook-"))) assert.equal(libAccepts(headers), false);
  }
  // A correct Standard Webhooks signature does not excuse a bad X-Service-Signature beside it.
  await assert.rejects(
    verifyWebhook(secret, { ...std, "x-service-signature": "sha256=zz" }, delivery.body),
    WebhookHeaderError,
  );
});

test("on altered Standard Webhooks headers the SDK accepts exactly what standardwebhooks accepts", async () => {
  const std = standardHeaders(delivery);
  const sig = std["webhook-signature"]!;
  const ts = std["webhook-timestamp"]!;
  const named: Record<string, string>[] = [
    std,
    { ...std, "webhook-signature": `v2,AAAA ${sig}` },
    { ...std, "webhook-signature": `${sig},extra` },
    { ...std, "webhook-signature": `${sig} ` },
    { ...std, "webhook-signature": ` ${sig}` },
    { ...std, "webhook-signature": `${sig} ${sig}` },
    { ...std, "webhook-signature": sig.replace(",", ", ") },
    { ...std, "webhook-signature": sig.toUpperCase() },
    { ...std, "webhook-signature": sig.replace(/=$/, "") },
    { ...std, "webhook-timestamp": `00${ts}` },
    { ...std, "webhook-timestamp": `${ts}abc` },
    { ...std, "webhook-timestamp": ` ${ts}` },
    { ...std, "webhook-timestamp": `${ts}.9` },
    { ...std, "webhook-timestamp": `+${ts}` },
    { ...std, "webhook-timestamp": `0x${ts}` },
    { ...std, "webhook-timestamp": String(Number(ts) + 1) },
    { ...std, "webhook-id": `${std["webhook-id"]}x` },
    { ...std, "webhook-id": "" },
    { "Webhook-Id": std["webhook-id"]!, "WEBHOOK-TIMESTAMP": ts, "Webhook-Signature": sig },
  ];
  // And random edits of the three values, from characters that matter to the parsers.
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const chars = " ,v12=+/0aA.x";
  for (let i = 0; i < 300; i++) {
    const name = ["webhook-id", "webhook-timestamp", "webhook-signature"][random(3)]!;
    let value = std[name]!;
    const at = random(value.length + 1);
    const edit = random(3);
    const c = chars[random(chars.length)]!;
    if (edit === 0) value = value.slice(0, at) + c + value.slice(at);
    else if (edit === 1) value = value.slice(0, at) + value.slice(at + 1);
    else value = value.slice(0, at) + c + value.slice(at + 1);
    named.push({ ...std, [name]: value });
  }
  let accepted = 0;
  for (const headers of named) {
    const lib = libAccepts(headers);
    const sdk = (await sdkVerdict(headers)) === "accepted";
    assert.equal(sdk, lib, `SDK ${sdk ? "accepted" : "rejected"}, standardwebhooks ${lib ? "accepted" : "rejected"}: ${JSON.stringify(headers)}`);
    if (lib) accepted++;
  }
  // Both outcomes were exercised, not just rejections.
  assert.ok(accepted >= 10 && accepted < named.length, `${accepted} of ${named.length} accepted`);
});
