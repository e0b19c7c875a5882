// The dashboard and /docs in Debian's Chromium, as a user goes through them.
// browser_test.go starts the service, a user and a failing webhook receiver,
// then runs this with their addresses in the environment. Each step leaves a
// screenshot in ARTIFACTS; the first failure ends the run with exit code 1.
import { chromium } from "playwright-core";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const base = env("SHIPD_URL");
const artifacts = env("ARTIFACTS");
const user = { email: env("SHIPD_EMAIL"), password: env("SHIPD_PASSWORD") };
const webhookURL = env("WEBHOOK_URL");
mkdirSync(artifacts, { recursive: true });

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();

// Every request the pages make, to prove nothing leaves the service.
const elsewhere = [];
const problems = [];
context.on("request", (req) => {
  const url = req.url();
  if (!url.startsWith(base) && !url.startsWith("data:") && !url.startsWith("blob:") && !url.startsWith("about:")) elsewhere.push(url);
});
page.on("console", (msg) => { if (msg.type() === "error") problems.push(`console: ${msg.text()}`); });
page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));

let n = 0;
async function step(name, fn) {
  n++;
  const shot = join(artifacts, `${String(n).padStart(2, "0")}-${name}.png`);
  try {
    await fn();
    await page.screenshot({ path: shot, fullPage: true });
    console.log(JSON.stringify({ step: name, ok: true, screenshot: shot }));
  } catch (err) {
    await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    console.log(JSON.stringify({ step: name, ok: false, error: String(err && err.stack || err), url: page.url(), screenshot: shot }));
    await browser.close();
    process.exit(1);
  }
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

async function api(method, path, key, body) {
  const res = await fetch(base + "/v1" + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const mainText = () => page.locator("main").innerText();

// submit clicks a form's button and waits for the page it leads to.
async function submit(name, scope = page.locator("main")) {
  await Promise.all([page.waitForEvent("load"), scope.getByRole("button", { name }).first().click()]);
}

await step("sign-in-wrong-password", async () => {
  await page.goto(base + "/dashboard");
  expect(page.url().endsWith("/dashboard/sign-in"), `signed out, /dashboard led to ${page.url()}`);
  await page.fill("#email", user.email);
  await page.fill("#password", "not the password");
  await submit("Sign in");
  expect((await mainText()).includes("The e-mail address or the password is wrong."), "no message for a wrong password");
});

await step("sign-in", async () => {
  await page.fill("#email", user.email);
  await page.fill("#password", user.password);
  await submit("Sign in");
  expect(page.url() === base + "/dashboard", `signed in, the browser is at ${page.url()}`);
  expect((await page.locator("header").innerText()).includes(user.email), "the header does not name the user");
});

let key;
await step("create-key", async () => {
  await Promise.all([page.waitForEvent("load"), page.locator("nav").getByText("API keys").click()]);
  await page.fill("#key-name", "Browser test shop");
  await submit("Create key");
  key = (await page.locator("#new-key").innerText()).trim();
  expect(key.startsWith("shp_"), `the key shown is ${key}`);
  await page.goto(base + "/dashboard/keys");
  expect(!(await page.content()).includes(key), "the key is shown again after the first time");
  expect((await mainText()).includes("Browser test shop"), "the key is not listed");
});

// A receiver that answers 500 to everything (browser_test.go) gets every
// channel and shipment event, so there is a failed attempt to read later.
await step("subscribe-webhook", async () => {
  await Promise.all([page.waitForEvent("load"), page.locator("nav").getByText("Webhooks").click()]);
  await page.fill("#webhook-name", "Shop receiver");
  await page.fill("#webhook-url", webhookURL);
  await page.check('input[name="events"][value="shipping_channel.created"]');
  await page.check('input[name="events"][value="shipment.created"]');
  await submit("Create subscription");
  expect((await page.locator("#new-secret").innerText()).trim().length >= 8, "no signing secret shown after subscribing");
});

// newChannel fills the sandbox carrier's form and returns the page's answer.
async function newChannel(name, secret) {
  await page.goto(base + "/dashboard/channels");
  await page.selectOption("#new-provider", "sandbox");
  await submit("Continue to its settings");
  await page.fill("#channel-name", name);
  await page.fill("#setting-clientId", "demo-client");
  await page.fill("#setting-clientSecret", secret);
  await submit("Create channel");
}

let channelID;
await step("create-and-validate-channel", async () => {
  await newChannel("Main warehouse", "demo-secret");
  const m = page.url().match(/\/dashboard\/channels\/([A-Za-z0-9_-]+)/);
  expect(m, `after creating, the browser is at ${page.url()}`);
  channelID = m[1];
  expect(!(await page.content()).includes("demo-secret"), "the channel's secret is shown");
  await submit("Validate with the carrier");
  expect((await mainText()).includes("Valid: the carrier accepted"), "validating a good channel does not say it is valid");
});

await step("channel-form-refused", async () => {
  await newChannel("Main warehouse", "demo-secret");
  const text = await mainText();
  expect(text.includes("name"), "a second channel of the same name: no reason given for the name");
  expect(!(await page.content()).includes("demo-secret"), "a refused form shows the typed secret again");
});

await step("channel-rejected-by-carrier", async () => {
  await newChannel("Wrong secret", "invalid");
  await submit("Validate with the carrier");
  expect((await mainText()).includes("clientSecret"), "the carrier's rejection does not name the setting");
});

await step("channels-list", async () => {
  // The list is a read model: it may take a moment to show both.
  for (let i = 0; i < 60; i++) {
    await page.goto(base + "/dashboard/channels");
    const text = await mainText();
    if (text.includes("Main warehouse") && text.includes("Wrong secret")) return;
    await page.waitForTimeout(500);
  }
  throw new Error("the channels list does not show both channels");
});

// A shop creates a shipment through the API with the key made above; the
// dashboard then finds it, its tracking number and its label.
let shipmentID, trackingNumber;
await step("find-shipment", async () => {
  const created = await api("POST", "/shipments", key, {
    shipping_channel_id: channelID,
    reference_number: "BROWSER-1001",
    sender_contact: { company_name: "Acme s.r.o.", email_address: "ship@acme.test", phone_number: "+420111222333" },
    recipient_contact: { first_name: "Jana", last_name: "Nováková", email_address: "jana@example.test", phone_number: "+420777888999" },
    origin_address: { street_name: "Skladová", house_number: "1", city_name: "Praha", postal_code: "11000", country_code: "CZ" },
    destination_address: { street_name: "Dlouhá", house_number: "12", city_name: "Brno", postal_code: "60200", country_code: "CZ" },
    parcels: [{ parcel_type: "package", length_dimension: 30, width_dimension: 20, height_dimension: 10, dimension_unit: "CM", weight_amount: 1.5, weight_unit: "KG" }],
  });
  shipmentID = created.data.id;
  await Promise.all([page.waitForEvent("load"), page.locator("nav").getByText("Shipments").click()]);
  // Booked by the carrier in the background, listed by a read model.
  for (let i = 0; i < 120; i++) {
    await page.fill("#shipments-search", "BROWSER-1001");
    await submit("Show");
    if ((await page.locator(`tr[data-shipment-id="${shipmentID}"]`).count()) > 0 && (await mainText()).includes("created")) break;
    await page.waitForTimeout(500);
  }
  const row = page.locator(`tr[data-shipment-id="${shipmentID}"]`);
  expect((await row.count()) === 1, "the search does not find the shipment");
  await Promise.all([page.waitForEvent("load"), row.getByRole("link").first().click()]);
  expect(page.url().endsWith(`/dashboard/shipments/${shipmentID}`), `the row leads to ${page.url()}`);
});

await step("shipment-label", async () => {
  for (let i = 0; i < 60 && (await page.locator("code.tracking-number").count()) === 0; i++) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  trackingNumber = (await page.locator("code.tracking-number").first().innerText()).trim();
  expect(trackingNumber.length > 0, "no tracking number on the shipment's page");
  const img = page.locator("img.label");
  await img.waitFor();
  await page.waitForFunction(() => { const i = document.querySelector("img.label"); return i && i.complete; });
  const size = await img.evaluate((i) => [i.naturalWidth, i.naturalHeight]);
  expect(size[0] > 200 && size[1] > 200, `the label preview is ${size[0]}x${size[1]}`);
  const href = await page.getByText(/Download label/).getAttribute("href");
  const res = await page.request.get(base + href);
  const body = await res.body();
  expect(res.status() === 200 && body.subarray(0, 4).toString() === "%PDF", `the label download: ${res.status()} ${body.subarray(0, 8)}`);
  expect((res.headers()["content-disposition"] || "").startsWith("attachment"), "the label is not offered as a download");
});

// The shipping day: two more shipments of the channel, a courier pickup of
// all three on a weekday at least two days ahead (the sandbox's windows
// there are open whatever the time of day now), then a manifest of them and
// its PDF downloaded.
let moreShipments = [];
await step("create-shipments", async () => {
  for (const ref of ["BROWSER-1002", "BROWSER-1003"]) {
    const created = await api("POST", "/shipments", key, {
      shipping_channel_id: channelID,
      reference_number: ref,
      sender_contact: { company_name: "Acme s.r.o.", email_address: "ship@acme.test", phone_number: "+420111222333" },
      recipient_contact: { first_name: "Petr", last_name: "Svoboda", email_address: "petr@example.test", phone_number: "+420777000111" },
      origin_address: { street_name: "Skladová", house_number: "1", city_name: "Praha", postal_code: "11000", country_code: "CZ" },
      destination_address: { street_name: "Masarykova", house_number: "5", city_name: "Olomouc", postal_code: "77900", country_code: "CZ" },
      parcels: [{ parcel_type: "package", length_dimension: 40, width_dimension: 30, height_dimension: 20, dimension_unit: "CM", weight_amount: 2, weight_unit: "KG" }],
    });
    moreShipments.push(created.data.id);
  }
  // Booked by the carrier in the background, then listed by a read model.
  for (let i = 0; i < 120; i++) {
    await page.goto(base + "/dashboard/shipments?status=created&search=BROWSER-");
    if ((await page.locator("tr[data-shipment-id]").count()) === 3) return;
    await page.waitForTimeout(500);
  }
  throw new Error("the three shipments are not listed as created");
});

// pickupDate is the first weekday at least two days ahead (UTC, the
// sandbox's clock): its windows are 09:00-12:00 and 12:00-17:00.
function pickupDate() {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + 2);
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
const pickupOn = pickupDate();

await step("pickup-form", async () => {
  await Promise.all([page.waitForEvent("load"), page.locator("nav").getByText("Pickups").click()]);
  expect((await mainText()).includes("No pickups yet."), "the pickup list is not empty to begin with");
  await page.selectOption("#order-channel", channelID);
  await page.fill("#order-date", pickupOn);
  await submit("Show the windows");
  const text = await mainText();
  expect(text.includes("09:00–12:00") && text.includes("12:00–17:00"), `the sandbox's windows on ${pickupOn} are not offered:\n${text}`);
  await page.check('input[name="window"][value="09:00-12:00"]');
  const ticked = await page.locator('#pickup-shipments input[name="shipment_ids"]:checked').evaluateAll((els) => els.map((e) => e.value));
  for (const id of [shipmentID, ...moreShipments]) expect(ticked.includes(id), `shipment ${id} is not ticked on the form (ticked: ${ticked})`);
  await page.fill("#pickup-note", "Ring at gate B");
});

let confirmation;
await step("order-pickup", async () => {
  // The dispatch module learns of new shipments from their events: one
  // booked moments ago may not be known yet, and the form says to try again.
  for (let i = 0; i < 30; i++) {
    await submit("Order the pickup");
    const text = await mainText();
    if (!text.includes("may not be known yet")) break;
    await page.waitForTimeout(1000);
  }
  const notice = await page.locator(".notice").innerText().catch(() => "");
  const m = notice.match(/confirmed it as (SBC-\d{8}-[A-Z0-9]+)/);
  expect(m, `no confirmation number after ordering: ${await mainText()}`);
  confirmation = m[1];
  expect(confirmation.startsWith("SBC-" + pickupOn.replaceAll("-", "")), `the confirmation ${confirmation} is not of ${pickupOn}`);
  // The notice names it at once; the list is a read model that follows.
  const row = page.locator("tr[data-pickup-id]", { hasText: confirmation });
  for (let i = 0; i < 60 && (await row.count()) === 0; i++) {
    await page.waitForTimeout(500);
    await page.goto(base + "/dashboard/pickups");
  }
  expect((await row.count()) === 1, "the pickup is not listed with its confirmation number");
  const rowText = await row.innerText();
  expect(rowText.includes("scheduled") && rowText.includes("09:00–12:00") && rowText.includes("Main warehouse"), `the pickup's row: ${rowText}`);
});

let manifestPDF;
await step("manifest-page", async () => {
  await Promise.all([page.waitForEvent("load"), page.locator("nav").getByText("Manifests").click()]);
  await page.selectOption("#make-channel", channelID);
  await submit("Make a manifest of every shipment on none yet");
  expect((await mainText()).includes("Manifest made: 3 shipments with 3 parcels handed over."), `no word of the manifest: ${await mainText()}`);
  for (let i = 0; i < 60 && (await page.locator("tr[data-manifest-id]").count()) === 0; i++) {
    await page.waitForTimeout(500);
    await page.goto(base + "/dashboard/manifests");
  }
  const row = page.locator("tr[data-manifest-id]");
  expect((await row.count()) === 1, "the manifest is not listed");
  expect((await row.innerText()).includes("Main warehouse"), "the manifest's row does not name its channel");
});

await step("download-manifest", async () => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download PDF" }).click()]);
  manifestPDF = join(artifacts, "manifest.pdf");
  await download.saveAs(manifestPDF);
  const body = readFileSync(manifestPDF);
  expect(body.subarray(0, 5).toString() === "%PDF-", `the download is not a PDF: ${body.subarray(0, 8)}`);
  expect(download.suggestedFilename().endsWith(".pdf"), `the download is named ${download.suggestedFilename()}`);
});

await step("another-accounts-shipment", async () => {
  // An id that is not the account's: a clear page, no data.
  const res = await page.goto(base + "/dashboard/shipments/sh_01M7YB0KAR245ATBVCA7P8VBH4");
  expect(res.status() === 403 && (await mainText()).includes("nothing was changed"), `an unknown shipment id: ${res.status()}`);
});

await step("failed-webhook-log", async () => {
  await page.goto(base + "/dashboard/webhooks");
  await Promise.all([page.waitForEvent("load"), page.getByRole("link", { name: "Shop receiver" }).click()]);
  for (let i = 0; i < 60 && !(await mainText()).includes("HTTP 500"); i++) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  expect((await mainText()).includes("HTTP 500"), "no failed attempt in the subscription's log");
  await Promise.all([page.waitForEvent("load"), page.locator("tr[data-log-id] a").last().click()]);
  expect((await page.locator("#outcome").innerText()).includes("failed"), "the attempt is not shown as failed");
  expect((await page.locator("#request-body").innerText()).includes("shipping_channel.created"), "the request body is not the event");
  expect((await page.locator("#response-body").innerText()).includes("receiver is down"), "the receiver's answer is not shown");
  expect(!(await page.locator("#next-retry").innerText()).includes("none"), "a failed first attempt has no next retry");
});

await step("docs", async () => {
  await page.goto(base + "/docs");
  await page.waitForLoadState("networkidle");
  await page.getByText("Create a shipment").first().waitFor({ timeout: 30000 });
  const text = await page.locator("body").innerText();
  for (const want of ["List shipments", "Create a shipping channel", "Subscribe a URL to events", "Webhooks"]) {
    expect(text.includes(want), `the reference lacks "${want}"`);
  }
});

await step("nothing-left-the-service", async () => {
  expect(elsewhere.length === 0, `requests to other origins: ${elsewhere.join(", ")}`);
  // Pages answered 401, 403 or 422 on purpose above; Chromium logs each
  // such status as "Failed to load resource". CSP refusals and script
  // errors are what must not appear.
  const real = problems.filter((p) => !p.includes("Failed to load resource: the server responded with a status of"));
  expect(real.length === 0, `errors in the pages: ${real.join("; ")}`);
});

await browser.close();
console.log(JSON.stringify({ done: true, steps: n }));
