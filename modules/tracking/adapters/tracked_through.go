package adapters

import (
	"context"
	"fmt"
)

// TrackedThrough lists the parcels of a channel still checked (the number's
// unique key leads with account and channel, so this is an index scan).
func (r *PostgresRepository) TrackedThrough(ctx context.Context, accountID, channelID string) ([]string, error) {
	var ids []string
	if err := r.db.SelectContext(ctx, &ids, `SELECT id FROM tracking.parcels
		WHERE account_id = $1 AND channel_id = $2 AND next_check_at IS NOT NULL ORDER BY id`, accountID, channelID); err != nil {
		return nil, fmt.Errorf("listing the parcels tracked through channel %s: %w", channelID, err)
	}
	return ids, nil
}
