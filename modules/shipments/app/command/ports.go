package command

import (
	"context"
	"time"
)

// LabelMerger joins per-parcel labels into one file, in parcel order.
type LabelMerger interface {
	Merge(format string, parts [][]byte) ([]byte, error)
	MIMEType(format string) string
}

// BookingClaim is a shipment leased to one worker for one booking attempt.
type BookingClaim struct {
	ID      string `db:"id"`
	Attempt int    `db:"attempts"`
}

// BookingQueue hands out shipments whose booking is due.
type BookingQueue interface {
	// Claim leases up to limit due shipments for lease.
	Claim(ctx context.Context, limit int, lease time.Duration) ([]BookingClaim, error)
	// Retry releases a claim's lease and schedules the next attempt after a
	// pause, unless another instance has claimed the shipment since.
	Retry(ctx context.Context, claim BookingClaim, after time.Duration) error
	// Release gives back claims never acted on (shutdown), as if never made.
	Release(ctx context.Context, claims []BookingClaim) error
	// Due counts the shipments due for booking now, claimed or not.
	Due(ctx context.Context) (int, error)
}
