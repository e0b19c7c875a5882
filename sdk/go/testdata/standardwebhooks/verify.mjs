// Verifies one webhook delivery with the Standard Webhooks reference
// library, as a receiver written in JavaScript would. Reads
// {"secret", "headers", "body"} on stdin; prints the verified payload's id,
// or the library's refusal with exit status 1.
import standardwebhooks from "standardwebhooks";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { secret, headers, body } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
// shipd keys the HMAC with the secret's bytes; the library takes the key as
// "whsec_" and its base64 (shipd's README says so).
const wh = new standardwebhooks.Webhook("whsec_" + Buffer.from(secret, "utf8").toString("base64"));
try {
  const payload = wh.verify(body, headers);
  console.log(payload.id);
} catch (err) {
  console.log(`${err.name}: ${err.message}`);
  process.exit(1);
}
