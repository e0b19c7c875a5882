package sandbox

import (
	"context"
	"time"

	"shipd/platform/carrier"
)

// Track tells the journey of a sandbox tracking number as far as the
// sandbox clock has gone since req.Since. Any valid S10 number whose
// indicator is SB works, booked here or not; others are not recognized.
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	if err := reachable(ctx, s); err != nil {
		return carrier.Tracking{}, err
	}
	tn := req.TrackingNumber
	if !ValidTrackingNumber(tn) || tn[:2] != "SB" {
		return carrier.Tracking{}, nil
	}
	j := journeyOf(tn)
	switch j {
	case journeyNotRecognized:
		return carrier.Tracking{}, nil
	case journeyUnavailable:
		return carrier.Tracking{}, unavailable("sandbox tracking service answered 503 Service Unavailable for %s", tn)
	case journeyHang:
		<-ctx.Done()
		return carrier.Tracking{}, unavailable("sandbox tracking service did not answer: %v", ctx.Err())
	}
	scans, ok := journeys[j]
	if !ok {
		scans = journeys[journeyNormal]
	}
	if hasCOD(tn) && statusTable.Status(scans[len(scans)-1].code) == carrier.StatusDelivered {
		last := scans[len(scans)-1]
		scans = append(scans[:len(scans):len(scans)], scan{last.after + codCollected.after, codCollected.code, codCollected.description, codCollected.location})
	}
	now := c.now()
	out := carrier.Tracking{Recognized: true}
	for _, sc := range scans {
		at := req.Since.Add(time.Duration(float64(sc.after) / c.scale())).Truncate(time.Second)
		if at.After(now) {
			break
		}
		out.Events = append(out.Events, event(sc, at))
	}
	if at, ok := c.cancelledAt(tn); ok {
		out.Events = append(out.Events, event(scan{code: codeCancelled, description: "Shipment cancelled by the sender"}, at))
	}
	return out, nil
}

func event(sc scan, at time.Time) carrier.TrackingEvent {
	return carrier.TrackingEvent{Code: sc.code, Status: statusTable.Status(sc.code), Description: sc.description,
		Location: sc.location, At: at, CODCollected: sc.code == codeCODPaid}
}

// TimeScale is how many sandbox seconds pass per real second.
func (c *Carrier) TimeScale() float64 { return c.scale() }

// cancelledAt is when the parcel's shipment was cancelled in this process,
// while the sandbox remembers it.
func (c *Carrier) cancelledAt(tn string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.cancelled[tn]
	return at, ok
}
