// Names for the generated types callers use most; everything else is
// reachable as Schemas["Name"] or through operations.
import type { components, operations } from "./schema.gen.js";

export type { components, operations, paths } from "./schema.gen.js";
export type Schemas = components["schemas"];

export type ShippingChannel = Schemas["ShippingChannel"];
export type CreateShippingChannel = Schemas["CreateShippingChannel"];
export type UpdateShippingChannel = Schemas["UpdateShippingChannel"];
export type Provider = Schemas["Provider"];
export type Shipment = Schemas["Shipment"];
export type ShipmentSummary = Schemas["ShipmentSummary"];
export type ShipmentStatus = Shipment["status"];
export type CreateShipment = Schemas["CreateShipment"];
export type UpdateShipment = Schemas["UpdateShipment"];
export type Label = Schemas["Label"];
export type TrackingParcel = Schemas["TrackingParcel"];
export type CreateTrackingParcel = Schemas["CreateTrackingParcel"];
export type UpdateTrackingParcel = Schemas["UpdateTrackingParcel"];
export type Pickup = Schemas["Pickup"];
export type PickupStatus = Pickup["status"];
export type CreatePickup = Schemas["CreatePickup"];
export type PickupWindow = Schemas["PickupAvailabilityResponse"]["data"]["windows"][number];
export type Manifest = Schemas["Manifest"];
export type CreateManifest = Schemas["CreateManifest"];
export type WebhookSubscription = Schemas["WebhookSubscription"];
export type CreateWebhookSubscription = Schemas["CreateWebhookSubscription"];
export type UpdateWebhookSubscription = Schemas["UpdateWebhookSubscription"];
export type WebhookLog = Schemas["WebhookLog"];
export type WebhookEvent = Schemas["WebhookEvent"];
export type EventType = Schemas["EventType"];
export type PageMeta = Schemas["PageMeta"];
export type PageLinks = Schemas["PageLinks"];

/** The query of a list operation, paging included. */
export type QueryOf<K extends keyof operations> = NonNullable<operations[K]["parameters"]["query"]>;

/** The JSON body of an operation's request. */
export type BodyOf<K extends keyof operations> = operations[K] extends {
  requestBody: { content: { "application/json": infer B } };
}
  ? B
  : never;
