package command

import (
	"context"
	"time"

	"shipd/modules/tracking/domain"
)

// CheckQueue hands out tracking parcels whose check is due.
type CheckQueue interface {
	// Claim leases up to limit due parcels for lease and returns them as
	// they were when claimed.
	Claim(ctx context.Context, limit int, lease time.Duration) ([]domain.Stored, error)
	// Release gives back leases of parcels never checked (shutdown).
	Release(ctx context.Context, ids []string) error
	// Due counts the parcels whose check is due now, claimed or not.
	Due(ctx context.Context) (int, error)
	// ScheduledBeyond lists the tracked parcels of provider whose next
	// check is later than now plus their check delay divided by scale,
	// leaving out those a check holds.
	ScheduledBeyond(ctx context.Context, provider string, scale float64) ([]string, error)
}
