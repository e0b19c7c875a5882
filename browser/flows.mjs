// The dashboard and /docs in Debian's Chromium, as a user goes through them.
// browser_test.go starts the service, a user and a failing webhook receiver,
// then runs this with their addresses in the environment. Each step leaves a
// screenshot in ARTIFACTS; the first failure ends the run with exit code 1.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
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

// FLOWS: the channels, shipments and webhooks steps are added below.

await step("docs", async () => {
  await page.goto(base + "/docs");
  await page.waitForLoadState("networkidle");
  await page.getByText("Create a shipment").first().waitFor({ timeout: 30000 });
});

await step("nothing-left-the-service", async () => {
  expect(elsewhere.length === 0, `requests to other origins: ${elsewhere.join(", ")}`);
  const real = problems.filter((p) => !p.includes("favicon"));
  expect(real.length === 0, `errors in the pages: ${real.join("; ")}`);
});

await browser.close();
console.log(JSON.stringify({ done: true, steps: n }));
