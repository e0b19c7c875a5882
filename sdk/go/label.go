package shipd

import (
	"context"
	"io"
)

// DownloadLabel writes the shipment's label file (PDF, ZPL or EPL, as the
// shipment asked) to w as it arrives, without holding it in memory, and
// returns the number of bytes written. Before the carrier has created the
// shipment it is an *Error (404 label_not_available), and nothing is
// written.
func (c *Client) DownloadLabel(ctx context.Context, shipmentID string, w io.Writer) (int64, error) {
	resp, err := c.raw.DownloadShipmentLabel(ctx, shipmentID)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(w, resp.Body)
}
