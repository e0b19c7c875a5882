// Every operation of the OpenAPI document, called through the SDK against a
// real shipd; the last test fails when one of them never got a 2xx.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Shipd, ShipdError, ShipmentRefusedError, verifyWebhook, type HeadersLike } from "../src/index.js";
import { eventually, pickupDay, sandboxSettings, shipmentBody, sundayAfter } from "./fixtures.js";
import { startShipd, type LiveShipd } from "./harness.js";
import { startReceiver, type Receiver } from "./receiver.js";
import { answeredOperations, operationsOf, recordingFetch, type Exchange } from "./recorder.js";

let live: LiveShipd;
let receiver: Receiver;
let shipd: Shipd;
const exchanges: Exchange[] = [];
let operations: ReturnType<typeof operationsOf> = [];
let channelId = "";
let shipmentId = "";
let dispatchChannelId = "";
let dispatchSecret = "";
let pickupId = "";
let manifestId = "";

before(async () => {
  live = await startShipd();
  receiver = await startReceiver();
  shipd = new Shipd({ baseUrl: live.baseUrl, apiKey: await live.newKey("sdk-ts-live"), fetch: recordingFetch(exchanges) });
});

after(async () => {
  await receiver?.close();
  await live?.stop();
});

test("the served OpenAPI document lists the operations", async () => {
  const doc = (await shipd.openapi()) as Parameters<typeof operationsOf>[0];
  operations = operationsOf(doc);
  assert.ok(operations.length >= 33, `only ${operations.length} operations`);
  assert.ok(operations.some((o) => o.id === "downloadShipmentLabel"));
});

test("providers include the sandbox", async () => {
  const { data } = await shipd.providers();
  assert.ok(data.some((p) => p.code === "sandbox"), JSON.stringify(data.map((p) => p.code)));
});

test("a refused request is a ShipdError with status, code, fields and request id", async () => {
  const err = await shipd.channels.create({ name: "Broken", provider: "sandbox", settings: { clientId: "a" } }).then(
    () => assert.fail("created a channel without clientSecret"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ShipdError, String(err));
  assert.equal(err.status, 422);
  assert.equal(err.code, "validation_failed");
  assert.ok(err.fields["settings.clientSecret"]?.length, JSON.stringify(err.fields));
  const answered = exchanges.at(-1)!;
  assert.match(err.requestId ?? "", /^req_/);
  assert.equal(err.requestId, answered.response?.headers.get("X-Request-Id"));

  const missing = await shipd.shipments.get("sh_DOESNOTEXIST").catch((e: unknown) => e);
  assert.ok(missing instanceof ShipdError);
  assert.equal(missing.status, 404);
  assert.equal(missing.code, "not_found");
});

test("channels: create, validate, get, update, replace", async () => {
  const created = await shipd.channels.create({ name: "Sandbox main", provider: "sandbox", settings: sandboxSettings });
  channelId = created.data.id;
  assert.equal(created.data.status, "draft");
  assert.equal((await shipd.channels.validate(channelId)).data.status, "active");
  assert.equal((await shipd.channels.get(channelId)).data.name, "Sandbox main");
  const patched = await shipd.channels.update(channelId, { description: "patched" });
  assert.equal(patched.data.description, "patched");
  // A settings change makes the channel draft again; validate once more.
  const replaced = await shipd.channels.replace(channelId, { name: "Sandbox renamed", settings: sandboxSettings });
  assert.equal(replaced.data.name, "Sandbox renamed");
  await shipd.channels.validate(channelId);
});

test("every POST carries an Idempotency-Key; the same key replays the first answer", async () => {
  const posts = exchanges.filter((x) => x.method === "POST");
  assert.ok(posts.length > 0);
  for (const x of posts) assert.ok(x.request.headers.get("Idempotency-Key"), `${x.path} had no key`);

  const body = { name: "Replayed", provider: "sandbox", settings: sandboxSettings };
  const first = await shipd.channels.create(body, { idempotencyKey: "sdk-ts-replay-1" });
  const again = await shipd.channels.create(body, { idempotencyKey: "sdk-ts-replay-1" });
  assert.equal(again.data.id, first.data.id);
  assert.equal(exchanges.at(-1)!.response?.headers.get("Idempotent-Replayed"), "true");
  const named = await eventually(async () => {
    const all = await shipd.channels.list({ per_page: 100 }).all();
    return all.some((c) => c.id === first.data.id) ? all.filter((c) => c.name === "Replayed") : undefined;
  });
  assert.equal(named.length, 1, "the replay created a second channel");

  // The same key with another body is refused, not replayed.
  const reused = await shipd.channels.create({ ...body, name: "Other" }, { idempotencyKey: "sdk-ts-replay-1" }).catch((e: unknown) => e);
  assert.ok(reused instanceof ShipdError);
  assert.equal(reused.code, "idempotency_key_reused");
});

test("lists page through every item", async () => {
  for (let i = 0; i < 5; i++) await shipd.channels.create({ name: `Paged ${i}`, provider: "sandbox", settings: sandboxSettings });
  const total = await eventually(async () => {
    const pages = [];
    for await (const page of shipd.channels.list({ per_page: 2 }).pages()) pages.push(page);
    return pages[0]!.meta.total >= 7 ? pages : undefined;
  });
  const expected = total[0]!.meta.total;
  assert.equal(total.length, Math.ceil(expected / 2));
  assert.deepEqual(
    total.map((p) => p.meta.current_page),
    total.map((_, i) => i + 1),
  );
  const ids = (await shipd.channels.list({ per_page: 2 }).all()).map((c) => c.id);
  assert.equal(ids.length, expected);
  assert.equal(new Set(ids).size, expected, "an item came twice");
  // Filters are kept from page to page.
  const paged = await shipd.channels.list({ per_page: 1, status: "draft" }).all();
  assert.ok(paged.length >= 5 && paged.every((c) => c.status === "draft"));
});

test("webhook subscriptions: create, get, update, replace, list", async () => {
  const created = await shipd.webhookSubscriptions.create({
    name: "sdk",
    url: receiver.url,
    events: ["shipment.created", "shipment.updated", "shipment.status_changed"],
  });
  assert.ok(created.generated_secret, "no generated secret");
  const id = created.data.id;
  assert.equal((await shipd.webhookSubscriptions.get(id)).data.url, receiver.url);
  assert.equal((await shipd.webhookSubscriptions.update(id, { name: "sdk patched" })).data.name, "sdk patched");
  assert.equal((await shipd.webhookSubscriptions.replace(id, { name: "sdk replaced" })).data.name, "sdk replaced");
  const listed = await eventually(async () => {
    const all = await shipd.webhookSubscriptions.list().all();
    return all.find((s) => s.id === id);
  });
  assert.equal(listed.name, "sdk replaced");
});

test("shipments: create, wait for created, label as JSON and as a file, update, replace, list, cancel", async () => {
  const created = await shipd.shipments.create(shipmentBody(channelId, "SDK-TS-1"));
  shipmentId = created.data.id;
  assert.equal(created.data.status, "pending");
  const booked = await shipd.shipments.waitFor(shipmentId, "created", { timeoutMs: 20_000 });
  assert.ok(booked.has_label);

  const json = await shipd.shipments.label(shipmentId);
  assert.equal(json.data.label.format, "pdf");
  const file = await shipd.shipments.downloadLabel(shipmentId);
  assert.equal(file.contentType, "application/pdf");
  assert.equal(file.filename, `${shipmentId}.pdf`);
  assert.equal(Buffer.from(file.bytes.subarray(0, 5)).toString(), "%PDF-");
  assert.deepEqual(Buffer.from(file.bytes), Buffer.from(json.data.label.content, "base64"));

  assert.equal((await shipd.shipments.update(shipmentId, { reference_number: "SDK-TS-1-B" })).data.reference_number, "SDK-TS-1-B");
  assert.equal((await shipd.shipments.replace(shipmentId, { reference_number: "SDK-TS-1-C" })).data.reference_number, "SDK-TS-1-C");
  const found = await eventually(async () => {
    const all = await shipd.shipments.list({ search: "SDK-TS-1-C" }).all();
    return all.length ? all : undefined;
  });
  assert.deepEqual(
    found.map((s) => s.id),
    [shipmentId],
  );
  assert.equal((await shipd.shipments.cancel(shipmentId)).data.status, "cancelled");
});

test("a shipment whose label is being fetched: the carrier's id shown, its label asked for again, cancelled", async () => {
  // LABELFAIL-9-: the sandbox's label service fails 9 times for it.
  const created = await shipd.shipments.create(shipmentBody(channelId, "LABELFAIL-9-SDK-TS"));
  const held = await eventually(async () => {
    const sh = (await shipd.shipments.get(created.data.id)).data;
    return sh.provider_shipment_id ? sh : undefined;
  });
  assert.equal(held.status, "pending");
  assert.equal(held.has_label, false);
  const retried = await shipd.shipments.retryLabel(created.data.id);
  assert.equal(retried.data.id, created.data.id);
  assert.equal((await shipd.shipments.cancel(created.data.id)).data.status, "cancelled");
});

test("a refused shipment rejects waitFor and can be deleted", async () => {
  const created = await shipd.shipments.create(shipmentBody(channelId, "SDK-TS-REFUSED", "99999"));
  const err = await shipd.shipments.waitFor(created.data.id, "created", { timeoutMs: 20_000 }).catch((e: unknown) => e);
  assert.ok(err instanceof ShipmentRefusedError, String(err));
  await shipd.shipments.delete(created.data.id);
  const gone = await shipd.shipments.get(created.data.id).catch((e: unknown) => e);
  assert.ok(gone instanceof ShipdError && gone.status === 404);
});

test("tracking parcels: create, get, refresh, update, replace, list, delete", async () => {
  const created = await shipd.trackingParcels.create({ tracking_number: "SB100000017CZ", shipping_channel_id: channelId });
  const id = created.data.id;
  assert.equal((await shipd.trackingParcels.get(id)).data.tracking_number, "SB100000017CZ");
  assert.equal((await shipd.trackingParcels.refresh(id)).data.id, id);
  assert.equal((await shipd.trackingParcels.update(id, { recipient_name: "Jana" })).data.recipient_name, "Jana");
  assert.equal((await shipd.trackingParcels.replace(id, { recipient_name: "Eva" })).data.recipient_name, "Eva");
  await eventually(async () => {
    const all = await shipd.trackingParcels.list({ search: "SB100000017CZ" }).all();
    return all.find((p) => p.id === id);
  });
  await shipd.trackingParcels.delete(id);
});

test("webhook logs: the deliveries of the shipment's events", async () => {
  const subs = await shipd.webhookSubscriptions.list().all();
  const sub = subs[0]!;
  const logs = await eventually(async () => {
    const all = await shipd.webhookSubscriptions.logs(sub.id, { event_type: "shipment.updated" }).all();
    return all.length ? all : undefined;
  });
  const one = await shipd.webhookSubscriptions.log(sub.id, logs[0]!.id);
  assert.equal(one.data.event_type, "shipment.updated");
  assert.equal(one.data.status, "success");
  await shipd.webhookSubscriptions.delete(sub.id);
});

test("a channel is deleted", async () => {
  const created = await shipd.channels.create({ name: "Doomed", provider: "sandbox", settings: sandboxSettings });
  const deleted = await shipd.channels.delete(created.data.id);
  assert.ok(deleted.message);
});

test("pickups: the windows of a day, one ordered, read, listed and cancelled", async () => {
  // A channel of its own: one active pickup a channel a date.
  const channel = await shipd.channels.create({ name: "Dispatch", provider: "sandbox", settings: sandboxSettings });
  await shipd.channels.validate(channel.data.id);
  dispatchChannelId = channel.data.id;
  const sub = await shipd.webhookSubscriptions.create({
    name: "dispatch",
    url: receiver.url,
    events: ["pickup.created", "pickup.cancelled", "manifest.created"],
  });
  dispatchSecret = sub.generated_secret!;
  const { data: providers } = await shipd.providers();
  const sandbox = providers.find((p) => p.code === "sandbox")!;
  assert.equal(sandbox.dispatch.pickups, true);
  assert.equal(sandbox.dispatch.manifest, "shipd");

  const day = pickupDay();
  const { data: availability } = await shipd.pickups.availability(dispatchChannelId, day);
  assert.deepEqual(availability, {
    shipping_channel_id: dispatchChannelId,
    date: day,
    source: "carrier",
    windows: [
      { ready_from: "09:00", ready_until: "12:00", order_by: "08:00" },
      { ready_from: "12:00", ready_until: "17:00", order_by: "11:00" },
    ],
  });
  assert.deepEqual((await shipd.pickups.availability(dispatchChannelId, sundayAfter(day))).data.windows, []);

  const order = {
    shipping_channel_id: dispatchChannelId,
    date: day,
    ready_from: "12:00",
    ready_until: "16:30",
    address: { street_name: "Skladová", house_number: "7", city_name: "Praha", postal_code: "11000", country_code: "CZ" },
    contact: { company_name: "Acme", first_name: "Petr", phone_number: "+420111222333" },
    parcel_count: 2,
    total_weight_kg: 3.5,
    note: "Ring at gate 2",
  };
  const { data: pickup } = await shipd.pickups.order(order);
  pickupId = pickup.id;
  assert.equal(pickup.status, "scheduled");
  assert.equal(pickup.provider, "sandbox");
  assert.match(pickup.confirmation_number ?? "", new RegExp(`^SBC-${day.replaceAll("-", "")}-[0-9A-F]{8}$`));
  assert.deepEqual(pickup.confirmed, { date: day, ready_from: "12:00", ready_until: "16:30" });
  assert.equal(pickup.address.house_number, "7");
  assert.equal(pickup.contact.first_name, "Petr");
  assert.deepEqual([pickup.parcel_count, pickup.total_weight_kg, pickup.shipment_ids, pickup.note], [2, 3.5, [], "Ring at gate 2"]);
  assert.equal(pickup.cancelled_at, null);

  const second = await shipd.pickups.order(order).catch((e: unknown) => e);
  assert.ok(second instanceof ShipdError && second.status === 422 && second.fields["date"]?.length, String(second));
  assert.equal((await shipd.pickups.get(pickupId)).data.confirmation_number, pickup.confirmation_number);
  await eventually(async () => {
    const all = await shipd.pickups.list({ shipping_channel_id: dispatchChannelId, date: day, status: "scheduled" }).all();
    return all.find((p) => p.id === pickupId);
  });

  const { data: cancelled } = await shipd.pickups.cancel(pickupId);
  assert.equal(cancelled.status, "cancelled");
  assert.ok(cancelled.cancelled_at);
  const again = await shipd.pickups.cancel(pickupId).catch((e: unknown) => e);
  assert.ok(again instanceof ShipdError && again.status === 409, String(again));
  await eventually(async () => {
    const all = await shipd.pickups.list({ shipping_channel_id: dispatchChannelId, status: "cancelled" }).all();
    return all.find((p) => p.id === pickupId);
  });
});

test("manifests: one of a created shipment, read, listed, its PDF downloaded", async () => {
  const created = await shipd.shipments.create(shipmentBody(dispatchChannelId, "SDK-TS-MANIFEST"));
  const shipmentId = created.data.id;
  await shipd.shipments.waitFor(shipmentId, "created", { timeoutMs: 20_000 });
  // The manifests learn of a shipment from its events, a moment after the
  // carrier's answer: until then its id is refused, named, to be tried again.
  const manifest = await eventually(async () => {
    try {
      return (await shipd.manifests.create({ shipping_channel_id: dispatchChannelId, shipment_ids: [shipmentId] })).data;
    } catch (e) {
      if (e instanceof ShipdError && e.status === 422 && e.fields["shipment_ids.0"]?.length) return undefined;
      throw e;
    }
  }, 15_000);
  manifestId = manifest.id;
  assert.equal(manifest.status, "created");
  assert.deepEqual(manifest.shipment_ids, [shipmentId]);
  assert.deepEqual([manifest.shipment_count, manifest.parcel_count, manifest.total_weight_kg], [1, 1, 1.5]);
  assert.equal(manifest.document, "shipd");
  assert.equal(manifest.origin_address.city_name, "Praha");
  assert.equal(manifest.sender_contact.company_name, "Acme");
  assert.equal(manifest.date, new Date(manifest.created_at).toISOString().slice(0, 10));

  assert.deepEqual((await shipd.manifests.get(manifestId)).data.shipment_ids, [shipmentId]);
  await eventually(async () => {
    const all = await shipd.manifests.list({ shipping_channel_id: dispatchChannelId, date: manifest.date }).all();
    return all.find((m) => m.id === manifestId);
  });
  const pdf = await shipd.manifests.downloadDocument(manifestId);
  assert.equal(pdf.contentType, "application/pdf");
  assert.equal(pdf.filename, `manifest-${manifestId}.pdf`);
  assert.equal(Buffer.from(pdf.bytes.subarray(0, 5)).toString(), "%PDF-");
  const missing = await shipd.manifests.downloadDocument("mnf_DOESNOTEXIST").catch((e: unknown) => e);
  assert.ok(missing instanceof ShipdError && missing.status === 404, String(missing));
});

test("the pickup's and the manifest's webhooks verify as their event types", async () => {
  for (const [type, id] of [
    ["pickup.created", pickupId],
    ["pickup.cancelled", pickupId],
    ["manifest.created", manifestId],
  ] as const) {
    const d = await receiver.waitFor((d) => d.headers["x-service-event"] === type && d.body.includes(`"${id}"`));
    const event = await verifyWebhook(dispatchSecret, d.headers as HeadersLike, d.body);
    assert.equal(event.type, type);
    if (event.type === "pickup.created") assert.deepEqual([event.data.pickup.id, event.data.pickup.status], [id, "scheduled"]);
    else if (event.type === "pickup.cancelled") assert.deepEqual([event.data.pickup.id, event.data.pickup.status], [id, "cancelled"]);
    else if (event.type === "manifest.created") assert.equal(event.data.manifest.id, id);
    else assert.fail(`${type} read as another event type`);
  }
});

test("every operation of the document got a 2xx through the SDK", () => {
  assert.ok(operations.length > 0, "the document was not read");
  const done = answeredOperations(operations, exchanges);
  const missing = operations.map((o) => o.id).filter((id) => !done.has(id));
  assert.deepEqual(missing, [], `never answered 2xx: ${missing.join(", ")}`);
});
