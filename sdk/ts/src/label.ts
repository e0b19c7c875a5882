/** A label as a file: the merged label of every parcel of a shipment. */
export interface LabelFile {
  /** The file's bytes (PDF, ZPL or EPL). */
  bytes: Uint8Array;
  /** application/pdf, application/x-zpl, application/x-epl or application/octet-stream. */
  contentType: string;
  /** The name shipd suggests (`<id>.<format>`), when it sent one. */
  filename: string | undefined;
}

/** The file of a downloadShipmentLabel answer. */
export function labelFile(bytes: ArrayBuffer, response: Response): LabelFile {
  return {
    bytes: new Uint8Array(bytes),
    contentType: response.headers.get("Content-Type") ?? "application/octet-stream",
    filename: filenameOf(response.headers.get("Content-Disposition")),
  };
}

/** The filename parameter of a Content-Disposition value, quoted or not. */
export function filenameOf(disposition: string | null): string | undefined {
  const m = disposition?.match(/filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2];
}
