import { init, unwrap, type Api, type RequestOptions } from "./call.js";
import { ShipdError } from "./errors.js";
import { labelFile, type LabelFile } from "./label.js";
import { Paginator } from "./pages.js";
import { sleep } from "./sleep.js";
import type { BodyOf, QueryOf, Shipment, ShipmentStatus, ShipmentSummary } from "./types.js";

export interface WaitOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Time between polls (default 250 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** A shipment the carrier refused: it stays `pending` with `is_successful: false` and `errors`. */
export class ShipmentRefusedError extends Error {
  override readonly name = "ShipmentRefusedError";
  constructor(readonly shipment: Shipment) {
    super(`shipment ${shipment.id} was refused: ${(shipment.errors ?? []).map((e) => e.message).join("; ")}`);
  }
}

/** Shipments: booked with the carrier in the background after the 201. */
export class Shipments {
  constructor(private readonly api: Api) {}

  /** POST /shipments: 201 `pending` at once; the carrier is called in the background (see waitFor). */
  create(body: BodyOf<"createShipment">, o?: RequestOptions) {
    return unwrap(this.api.POST("/shipments", { body, ...init(o) }));
  }

  list(query: QueryOf<"listShipments"> = {}, o?: RequestOptions): Paginator<ShipmentSummary> {
    return new Paginator(
      (page) => unwrap(this.api.GET("/shipments", { params: { query: { ...query, page } }, ...init(o) })),
      query.page ?? 1,
    );
  }

  get(id: string, o?: RequestOptions) {
    return unwrap(this.api.GET("/shipments/{id}", { params: { path: { id } }, ...init(o) }));
  }

  replace(id: string, body: BodyOf<"replaceShipment">, o?: RequestOptions) {
    return unwrap(this.api.PUT("/shipments/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  update(id: string, body: BodyOf<"updateShipment">, o?: RequestOptions) {
    return unwrap(this.api.PATCH("/shipments/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  /** 204 for a shipment the carrier did not create; a 422 ShipdError otherwise. */
  async delete(id: string, o?: RequestOptions): Promise<void> {
    await unwrap(this.api.DELETE("/shipments/{id}", { params: { path: { id } }, ...init(o) }));
  }

  cancel(id: string, o?: RequestOptions) {
    return unwrap(this.api.POST("/shipments/{id}/cancel", { params: { path: { id } }, ...init(o) }));
  }

  /**
   * POST /shipments/{id}/label/retry: fetch again the label of a shipment the
   * carrier holds whose label could not be fetched (202, the shipment as it
   * stands; has_label turns true once the label is stored).
   */
  retryLabel(id: string, o?: RequestOptions) {
    return unwrap(this.api.POST("/shipments/{id}/label/retry", { params: { path: { id } }, ...init(o) }));
  }

  /** GET /shipments/{id}/label: the label as JSON (base64 content). */
  label(id: string, o?: RequestOptions) {
    return unwrap(this.api.GET("/shipments/{id}/label", { params: { path: { id } }, ...init(o) }));
  }

  /** GET /shipments/{id}/label/file: the label file itself. */
  async downloadLabel(id: string, o?: RequestOptions): Promise<LabelFile> {
    const answer = await this.api.GET("/shipments/{id}/label/file", {
      params: { path: { id } },
      parseAs: "arrayBuffer",
      ...init(o),
    });
    if (!answer.response.ok) throw ShipdError.fromResponse(answer.response, answer.error);
    return labelFile(answer.data ?? new ArrayBuffer(0), answer.response);
  }

  /**
   * Polls the shipment until its status is `status` (e.g. `created`: booked,
   * label ready). Rejects with ShipmentRefusedError when the carrier refused
   * it, and with an Error when timeoutMs passes first.
   */
  async waitFor(id: string, status: ShipmentStatus, o: WaitOptions & RequestOptions = {}): Promise<Shipment> {
    const deadline = Date.now() + (o.timeoutMs ?? 60_000);
    for (;;) {
      const { data } = await this.get(id, o);
      if (data.status === status) return data;
      if (data.is_successful === false) throw new ShipmentRefusedError(data);
      if (Date.now() >= deadline) {
        throw new Error(`shipment ${id} is still ${data.status}, not ${status}, after ${o.timeoutMs ?? 60_000} ms`);
      }
      await sleep(o.intervalMs ?? 250, o.signal);
    }
  }
}
