package shipd

import (
	"context"
	"io"
)

// DownloadManifest writes the manifest's handover document (a PDF: the
// carrier's own where it makes one, else shipd's, with a barcode per
// parcel) to w as it arrives, and returns the number of bytes written. A
// manifest the account does not have is an *Error (404), and nothing is
// written.
func (c *Client) DownloadManifest(ctx context.Context, manifestID string, w io.Writer) (int64, error) {
	resp, err := c.raw.DownloadManifestDocument(ctx, manifestID)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(w, resp.Body)
}
