import { init, unwrap, type Api, type RequestOptions } from "./call.js";
import { ShipdError } from "./errors.js";
import { filenameOf } from "./label.js";
import { Paginator } from "./pages.js";
import type { BodyOf, Manifest, QueryOf } from "./types.js";

/** A manifest's handover document as a file. */
export interface ManifestDocument {
  /** The PDF's bytes. */
  bytes: Uint8Array;
  /** application/pdf. */
  contentType: string;
  /** The name shipd suggests (`manifest-<id>.pdf`), when it sent one. */
  filename: string | undefined;
}

/** Manifests: the shipments of a channel handed over to its carrier, with their document. */
export class Manifests {
  constructor(private readonly api: Api) {}

  /**
   * POST /manifests: 201 `created`, with its document. Without shipment_ids,
   * every created shipment of the channel on no manifest yet. A shipment
   * created at its carrier moments ago may not be known to manifests yet: a
   * 422 ShipdError on its `shipment_ids.N` that asks to try again.
   */
  create(body: BodyOf<"createManifest">, o?: RequestOptions) {
    return unwrap(this.api.POST("/manifests", { body, ...init(o) }));
  }

  /** GET /manifests, every page (filters: shipping_channel_id, date). */
  list(query: QueryOf<"listManifests"> = {}, o?: RequestOptions): Paginator<Manifest> {
    return new Paginator(
      (page) => unwrap(this.api.GET("/manifests", { params: { query: { ...query, page } }, ...init(o) })),
      query.page ?? 1,
    );
  }

  get(id: string, o?: RequestOptions) {
    return unwrap(this.api.GET("/manifests/{id}", { params: { path: { id } }, ...init(o) }));
  }

  /** GET /manifests/{id}/document: the handover document, a PDF. */
  async downloadDocument(id: string, o?: RequestOptions): Promise<ManifestDocument> {
    const answer = await this.api.GET("/manifests/{id}/document", {
      params: { path: { id } },
      parseAs: "arrayBuffer",
      ...init(o),
    });
    if (!answer.response.ok) throw ShipdError.fromResponse(answer.response, answer.error);
    return {
      bytes: new Uint8Array(answer.data ?? new ArrayBuffer(0)),
      contentType: answer.response.headers.get("Content-Type") ?? "application/octet-stream",
      filename: filenameOf(answer.response.headers.get("Content-Disposition")),
    };
  }
}
