package shipd

import (
	"context"
	"fmt"
	"time"
)

// WaitForShipment reads the shipment every interval (a second when 0) until
// its status is want, and returns it then. A shipment is booked with the
// carrier in the background, so a new one answers "pending" and becomes
// "created" a moment later. A carrier's refusal (is_successful false, with
// errors) ends the wait with an error, as does ctx: give it a deadline.
func (c *Client) WaitForShipment(ctx context.Context, id string, want ShipmentStatus, interval time.Duration) (*Shipment, error) {
	if interval <= 0 {
		interval = time.Second
	}
	for {
		res, err := c.GetShipmentWithResponse(ctx, id)
		if err != nil {
			return nil, err
		}
		sh := res.JSON200.Data
		if sh.Status == want {
			return &sh, nil
		}
		if sh.IsSuccessful != nil && !*sh.IsSuccessful {
			return &sh, fmt.Errorf("shipd: shipment %s was refused by the carrier while %s", id, sh.Status)
		}
		if err := sleep(ctx, interval); err != nil {
			return &sh, err
		}
	}
}
