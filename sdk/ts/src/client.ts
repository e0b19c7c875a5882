import createClient from "openapi-fetch";
import { init, unwrap, type Api, type RequestOptions } from "./call.js";
import { Channels } from "./channels.js";
import { Manifests } from "./manifests.js";
import { Pickups } from "./pickups.js";
import { defaultRetryPolicy, type RetryPolicy } from "./retry.js";
import { Shipments } from "./shipments.js";
import { WebhookSubscriptions } from "./subscriptions.js";
import { TrackingParcels } from "./tracking.js";
import { transport, type FetchFn } from "./transport.js";

export interface ShipdOptions {
  /** The service's address, e.g. `https://shipd.example.com` (a trailing `/v1` is fine too). */
  baseUrl: string;
  /** An API key from `shipd keys create` (`shp_…`). */
  apiKey: string;
  /** Retries after 429/503 and network failures; each field defaults as in defaultRetryPolicy. */
  retry?: Partial<RetryPolicy>;
  /** Give every POST an Idempotency-Key unless the call brings one (default true). */
  idempotencyKeys?: boolean;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch each attempt is sent with (default: the platform's). */
  fetch?: FetchFn;
}

/**
 * A shipd client. Resources (`channels`, `shipments`, `trackingParcels`,
 * `pickups`, `manifests`, `webhookSubscriptions`) return the answer's body
 * as the OpenAPI document types it and throw ShipdError for an error
 * answer; list methods return a Paginator. `api` is the typed openapi-fetch
 * client underneath (every operation by path and method, the same retries
 * and keys) for anything the resources do not cover.
 */
export class Shipd {
  readonly api: Api;
  readonly channels: Channels;
  readonly shipments: Shipments;
  readonly trackingParcels: TrackingParcels;
  readonly pickups: Pickups;
  readonly manifests: Manifests;
  readonly webhookSubscriptions: WebhookSubscriptions;

  constructor(o: ShipdOptions) {
    const platformFetch: FetchFn = (request) => globalThis.fetch(request);
    const root = o.baseUrl.replace(/\/+$/, "");
    this.api = createClient({
      baseUrl: root.endsWith("/v1") ? root : `${root}/v1`,
      headers: { ...o.headers, Authorization: `Bearer ${o.apiKey}` },
      fetch: transport({
        fetch: o.fetch ?? platformFetch,
        retry: { ...defaultRetryPolicy, ...o.retry },
        idempotencyKeys: o.idempotencyKeys ?? true,
      }),
    });
    this.channels = new Channels(this.api);
    this.shipments = new Shipments(this.api);
    this.trackingParcels = new TrackingParcels(this.api);
    this.pickups = new Pickups(this.api);
    this.manifests = new Manifests(this.api);
    this.webhookSubscriptions = new WebhookSubscriptions(this.api);
  }

  /** Every provider's settings schema, products, label formats and limits. */
  providers(o?: RequestOptions) {
    return unwrap(this.api.GET("/providers", { ...init(o) }));
  }

  /** The OpenAPI document the service serves (GET /v1/openapi.json). */
  openapi(o?: RequestOptions) {
    return unwrap(this.api.GET("/openapi.json", { ...init(o) }));
  }
}
