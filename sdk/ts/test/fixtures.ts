// Request bodies the live tests share.
import type { CreateShipment } from "../src/index.js";

export const sandboxSettings = { clientId: "a", clientSecret: "b" };

export function shipmentBody(channelId: string, reference: string, postalCode = "60200"): CreateShipment {
  return {
    shipping_channel_id: channelId,
    reference_number: reference,
    sender_contact: { company_name: "Acme", email_address: "ship@acme.test", phone_number: "+420111222333" },
    recipient_contact: {
      first_name: "Jana",
      last_name: "Nováková",
      email_address: "jana@example.test",
      phone_number: "+420777888999",
    },
    origin_address: { street_name: "Skladová", house_number: "1", city_name: "Praha", postal_code: "11000", country_code: "CZ" },
    destination_address: {
      street_name: "Dlouhá",
      house_number: "12",
      city_name: "Brno",
      postal_code: postalCode,
      country_code: "CZ",
    },
    parcels: [{ length_dimension: 30, width_dimension: 20, height_dimension: 10, weight_amount: 1.5 }],
  };
}

/** Polls check until it returns a value other than undefined (read models trail writes). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The first weekday at least two days after now (UTC), as YYYY-MM-DD: the
 * sandbox collects on it in both its windows, whose order-by times are still
 * ahead.
 */
export function pickupDay(now = new Date()): string {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 2));
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}

/** The Sunday after a weekday date (YYYY-MM-DD): the sandbox collects on none. */
export function sundayAfter(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + 7 - day.getUTCDay());
  return day.toISOString().slice(0, 10);
}
